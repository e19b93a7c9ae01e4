package broker

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// FailureClass is the kind of a failed platform call, as the outbox acts
// on it and as people and agents are shown it (a copy's error_class).
type FailureClass string

// The classes of a failed platform call.
const (
	// FailPermanent: the platform refused the call for good (a channel
	// wrapped the error with Permanent); the task ends.
	FailPermanent FailureClass = "permanent"
	// FailRateLimited: the platform refused the call for now (a channel
	// wrapped the error with RetryAfter); it is known not to have been
	// carried out.
	FailRateLimited FailureClass = "rate limited"
	// FailTimeout: no answer came in time; the call may have been
	// carried out.
	FailTimeout FailureClass = "timeout"
	// FailUnreachable: any other failure, such as a lost connection; the
	// call may have been carried out.
	FailUnreachable FailureClass = "unreachable"
)

// Valid reports whether c is one of the classes above.
func (c FailureClass) Valid() bool {
	switch c {
	case FailPermanent, FailRateLimited, FailTimeout, FailUnreachable:
		return true
	}
	return false
}

// MayHaveReached reports whether a call that failed so may have reached
// the platform all the same: the answer was lost, not refused.
func (c FailureClass) MayHaveReached() bool { return c == FailTimeout || c == FailUnreachable }

// sentence is the bridge's own sentence for the class, shown when the
// platform's words are not plain or not known.
func (c FailureClass) sentence() string {
	switch c {
	case FailPermanent:
		return textRefused
	case FailRateLimited:
		return textSlowDown
	case FailTimeout:
		return textTimeout
	}
	return textUnreachable
}

// Failure is a failed platform call as the outbox classified it
// (Classify). Match it with errors.As.
type Failure struct {
	// Class is what the outbox does about it.
	Class FailureClass
	// RetryAfter is how long the platform asked to wait, for a rate
	// limit that said; zero otherwise.
	RetryAfter time.Duration
	// Err is the channel's error, whole: it may name the platform's URLs
	// and addresses, so it goes to the log, never to people or agents.
	Err error
}

func (f *Failure) Error() string { return string(f.Class) + ": " + f.Err.Error() }

// Unwrap returns the channel's error.
func (f *Failure) Unwrap() error { return f.Err }

// Text is what people and agents are shown of the failure, after its
// class: one short sentence, the platform's own words for a refusal when
// they are plain (failure_text.go), never an address or a URL.
func (f *Failure) Text() string {
	switch f.Class {
	case FailPermanent:
		return refusedFor(f.Err)
	case FailRateLimited:
		if f.RetryAfter > 0 {
			return fmt.Sprintf("the platform asked to wait %s", f.RetryAfter.Round(time.Millisecond))
		}
	}
	return f.Class.sentence()
}

// Classify returns the failure err stands for; it is the one place where
// a channel's error becomes a class. Channels say what they know by
// wrapping: Permanent for a refusal for good, RetryAfter for a refusal
// for now (every channel wraps its platform's 429 so); a context that ran
// out is a timeout; anything else is unreachable. An err that is already
// a *Failure is returned as it is; a nil err gives nil.
func Classify(err error) *Failure {
	if err == nil {
		return nil
	}
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	switch {
	case errors.Is(err, ErrPermanent):
		return &Failure{Class: FailPermanent, Err: err}
	case errors.Is(err, ErrRateLimited):
		after, _ := RetryAfterOf(err)
		return &Failure{Class: FailRateLimited, RetryAfter: after, Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Failure{Class: FailTimeout, Err: err}
	}
	return &Failure{Class: FailUnreachable, Err: err}
}
