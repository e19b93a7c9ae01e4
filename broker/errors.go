package broker

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors for the broker's states; check them with errors.Is.
var (
	// ErrNotFound: no such question (or not one the caller may see).
	ErrNotFound = errors.New("not found")
	// ErrClosed: the question is no longer pending.
	ErrClosed = errors.New("question is closed")
	// ErrConflict: the idempotency key names a question with another body.
	ErrConflict = errors.New("conflict")
	// ErrInvalid: the input breaks a rule; a *FieldError names the field.
	ErrInvalid = errors.New("invalid input")
	// ErrForbidden: the caller may not act on this question from here.
	ErrForbidden = errors.New("forbidden")
	// ErrUnavailable: the store cannot be reached; try again later.
	ErrUnavailable = errors.New("store unavailable")
	// ErrIDTaken: a store's Create found the id in use; the broker draws another.
	ErrIDTaken = errors.New("id already taken")
	// ErrPermanent: a channel cannot post to a target and never will
	// (chat not found, bot removed, bad credentials).
	ErrPermanent = errors.New("permanent channel failure")
	// ErrRateLimited: the platform refused a call for now (429); a
	// *RateLimitError says how long it asked to wait.
	ErrRateLimited = errors.New("rate limited")
	// ErrLimit: the agent holds as much as a limit allows; a *LimitError
	// says which. Retrying later may succeed.
	ErrLimit = errors.New("limit reached")
	// ErrNotDue: a question's deadline moved (a snooze) after it was
	// found due; it stays pending.
	ErrNotDue = errors.New("deadline moved")
)

// FieldError is a validation failure that names the offending field in the
// agent's request, such as "questions[0].options[2].label".
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

// Is makes a FieldError match ErrInvalid.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// ClosedError reports a question that is no longer pending, with its
// current state, so that callers can say who answered and when.
type ClosedError struct {
	Question *Question
}

func (e *ClosedError) Error() string {
	return fmt.Sprintf("question %s is %s", e.Question.ID, e.Question.Status)
}

// Is makes a ClosedError match ErrClosed.
func (e *ClosedError) Is(target error) bool { return target == ErrClosed }

// Permanent wraps err so that errors.Is(err, ErrPermanent) holds; channels
// use it for failures that retrying cannot fix.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string        { return e.err.Error() }
func (e *permanentError) Unwrap() error        { return e.err }
func (e *permanentError) Is(target error) bool { return target == ErrPermanent }

// LimitError reports that an agent holds as many of something as a limit
// allows, such as pending questions or open event streams.
type LimitError struct {
	// What is held, in the plural: "pending questions".
	What string
	// Limit is the most allowed.
	Limit int
	// Setting names the configuration key that sets Limit, when known.
	Setting string
}

func (e *LimitError) Error() string {
	s := fmt.Sprintf("the agent already has %d %s, the most allowed", e.Limit, e.What)
	if e.Setting != "" {
		s += " (" + e.Setting + ")"
	}
	return s
}

// Is makes a LimitError match ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// RetryAfter wraps err, a platform's refusal of a call for now (HTTP 429),
// with the wait the platform asked for (retry_after, Retry-After; zero
// when it named none), so that errors.Is(err, ErrRateLimited) holds and
// RetryAfterOf returns d. Channels use it for the calls the outbox makes
// (Post, Update, Remind) instead of waiting and sending again themselves:
// the outbox records the attempt and paces the next one no earlier than
// d, on every instance, so a resent call never takes a paced call's turn.
func RetryAfter(d time.Duration, err error) error {
	if err == nil {
		return nil
	}
	return &RateLimitError{After: max(d, 0), Err: err}
}

// RateLimitError is a call the platform refused for now; see RetryAfter.
type RateLimitError struct {
	// After is how long the platform asked to wait; zero when it did not
	// say.
	After time.Duration
	// Err is the channel's error for the refused call.
	Err error
}

func (e *RateLimitError) Error() string { return e.Err.Error() }

// Unwrap returns the channel's error.
func (e *RateLimitError) Unwrap() error { return e.Err }

// Is makes a RateLimitError match ErrRateLimited.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// RetryAfterOf returns the wait a rate-limited err asked for, and whether
// err is a refusal wrapped with RetryAfter.
func RetryAfterOf(err error) (time.Duration, bool) {
	var rl *RateLimitError
	if !errors.As(err, &rl) {
		return 0, false
	}
	return rl.After, true
}
