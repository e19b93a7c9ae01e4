package client

import (
	"errors"
	"fmt"
)

// Outcomes other than an answer, for errors.Is. Ask returns them wrapped
// in the typed errors below, together with the Result.
var (
	// ErrDeclined: a person declined, or asked to discuss first
	// (DeclinedError.NotReady).
	ErrDeclined = errors.New("askbridge: declined")
	// ErrTimeout: nobody answered before the deadline; TimeoutError says
	// whether the defaults were used.
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

// TimeoutError is a question that reached its deadline. Fallback is
// "default" when every prompt had a default and the Result carries them
// as answers (marked Defaulted), "none" when it carries no answers.
type TimeoutError struct {
	ID       string
	Fallback string
}

func (e *TimeoutError) Error() string {
	if e.Fallback == "default" {
		return fmt.Sprintf("askbridge: question %s timed out; the defaults were used", e.ID)
	}
	return fmt.Sprintf("askbridge: question %s timed out without an answer", e.ID)
}

// Is makes a TimeoutError match ErrTimeout.
func (e *TimeoutError) Is(target error) bool { return target == ErrTimeout }

// UsedDefault reports whether the result carries the prompts' defaults.
func (e *TimeoutError) UsedDefault() bool { return e.Fallback == "default" }

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

// Err returns nil for an answered question and the typed error of any
// other ended one (*DeclinedError, *TimeoutError, *EndedError). A pending
// question has no error.
func (r *Result) Err() error {
	switch r.Status {
	case StatusDeclined:
		return &DeclinedError{ID: r.ID, Reason: r.Reason, NotReady: r.NotReady}
	case StatusTimedOut:
		return &TimeoutError{ID: r.ID, Fallback: r.Fallback}
	case StatusCancelled, StatusUnsupported:
		return &EndedError{ID: r.ID, Status: r.Status, Reason: r.Reason}
	}
	return nil
}
