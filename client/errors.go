package client

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Outcomes other than an answer, for errors.Is. Ask returns them wrapped
// in the typed errors below, together with the Result.
var (
	// ErrDeclined: a person declined, or asked to discuss first
	// (DeclinedError.NotReady).
	ErrDeclined = errors.New("askbridge: declined")
	// ErrTimeout: the deadline passed with some prompt that nobody
	// answered and that had no default; TimeoutError says which.
	ErrTimeout = errors.New("askbridge: timed out")
	// ErrCancelled: the question was cancelled (by the agent, its
	// session, or an abandoned lease).
	ErrCancelled = errors.New("askbridge: cancelled")
	// ErrUnsupported: no channel could take the question.
	ErrUnsupported = errors.New("askbridge: unsupported")
)

// DeclinedError is a declined question. NotReady is true for /discuss:
// the person wants to talk before answering, and Reason holds what they
// said; ask what to clarify instead of asking the same again.
type DeclinedError struct {
	ID       string
	Reason   string
	NotReady bool
}

func (e *DeclinedError) Error() string {
	what := "declined"
	if e.NotReady {
		what = "not ready to answer (wants to discuss)"
	}
	if e.Reason == "" {
		return fmt.Sprintf("askbridge: question %s %s", e.ID, what)
	}
	return fmt.Sprintf("askbridge: question %s %s: %s", e.ID, what, e.Reason)
}

// Is makes a DeclinedError match ErrDeclined.
func (e *DeclinedError) Is(target error) bool { return target == ErrDeclined }

// TimeoutError is a question that reached its deadline with some prompt
// left without an answer: nobody answered it and it had no default.
// Fallback is FallbackNone when no default was used, FallbackPartial when
// some were. The Result still holds every answer there is: those people
// gave (with AnsweredBy) and the defaults (marked Defaulted). Answered,
// Defaulted and Unanswered name the prompts of each kind by question
// text, in the dialog's order.
type TimeoutError struct {
	ID       string
	Fallback string

	Answered, Defaulted, Unanswered []string
}

func (e *TimeoutError) Error() string {
	if len(e.Answered) == 0 && len(e.Defaulted) == 0 {
		return fmt.Sprintf("askbridge: question %s timed out without an answer", e.ID)
	}
	total := len(e.Answered) + len(e.Defaulted) + len(e.Unanswered)
	s := fmt.Sprintf("askbridge: question %s timed out: %d of %d answered", e.ID, len(e.Answered), total)
	if len(e.Defaulted) > 0 {
		s += fmt.Sprintf(", %d took the default", len(e.Defaulted))
	}
	if len(e.Unanswered) > 0 {
		s += fmt.Sprintf(", no answer to %s", strings.Join(quoted(e.Unanswered), ", "))
	}
	return s
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// Is makes a TimeoutError match ErrTimeout.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// UsedDefault reports whether some prompts took their defaults (the
// Result holds them, marked Defaulted).
func (e *TimeoutError) UsedDefault() bool {
	return len(e.Defaulted) > 0 || e.Fallback == FallbackDefault || e.Fallback == FallbackPartial
}

// timeoutError sorts the prompts of a timed-out result, in the dialog's
// order, into those people answered, those that took their default and
// those left without an answer.
func timeoutError(r *Result) *TimeoutError {
	e := &TimeoutError{ID: r.ID, Fallback: r.Fallback}
	var order []string
	for _, p := range r.Questions {
		order = append(order, p.Question)
	}
	if len(order) == 0 {
		for q := range r.Answers {
			order = append(order, q)
		}
		sort.Strings(order)
	}
	for _, q := range order {
		a, ok := r.Answers[q]
		switch {
		case !ok:
			e.Unanswered = append(e.Unanswered, q)
		case a.Defaulted:
			e.Defaulted = append(e.Defaulted, q)
		default:
			e.Answered = append(e.Answered, q)
		}
	}
	return e
}

// EndedError is a question cancelled or unsupported, with the reason.
type EndedError struct {
	ID     string
	Status Status
	Reason string
}

func (e *EndedError) Error() string {
	if e.Reason == "" {
		return fmt.Sprintf("askbridge: question %s %s", e.ID, e.Status)
	}
	return fmt.Sprintf("askbridge: question %s %s: %s", e.ID, e.Status, e.Reason)
}

// Is makes an EndedError match ErrCancelled or ErrUnsupported.
func (e *EndedError) Is(target error) bool {
	return (target == ErrCancelled && e.Status == StatusCancelled) ||
		(target == ErrUnsupported && e.Status == StatusUnsupported)
}

// Err returns nil for an answered question, and for a timed-out one
// whose every prompt has an answer, a person's or its default (Fallback
// FallbackDefault; the defaults are marked Defaulted). Any other ended
// question gives its typed error (*DeclinedError, *TimeoutError,
// *EndedError). A pending question has no error.
func (r *Result) Err() error {
	switch r.Status {
	case StatusDeclined:
		return &DeclinedError{ID: r.ID, Reason: r.Reason, NotReady: r.NotReady}
	case StatusTimedOut:
		if r.Fallback == FallbackDefault {
			return nil
		}
		return timeoutError(r)
	case StatusCancelled, StatusUnsupported:
		return &EndedError{ID: r.ID, Status: r.Status, Reason: r.Reason}
	}
	return nil
}
