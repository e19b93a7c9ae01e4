package broker

import (
	"errors"
	"strings"

	"github.com/askbridge/askbridge/internal/i18n"
)

// A refusal that reaches both an API caller and a person is written once,
// as a catalog message with its arguments (a phrase): its Error is the
// English an API caller, the log and the audit log read, and sayErr gives
// a person the same message in their language.

// phrase is catalog message id with its arguments. An argument that is
// itself a phrase, or a func(*i18n.Printer) string, is written in the
// same language as the message.
type phrase struct {
	id   string
	args []any
}

func say(id string, args ...any) phrase { return phrase{id: id, args: args} }

// in writes p in w's language.
func (p phrase) in(w *i18n.Printer) string {
	args := make([]any, len(p.args))
	for k, a := range p.args {
		switch a := a.(type) {
		case phrase:
			args[k] = a.in(w)
		case func(*i18n.Printer) string:
			args[k] = a(w)
		default:
			args[k] = a
		}
	}
	return w.T(p.id, args...)
}

// saidError is an error whose text is a phrase: Error is the English,
// after the kind it wraps ("invalid: …"), as fmt.Errorf("%w: …") would
// write it.
type saidError struct {
	kind error
	phrase
}

// sayError returns the error of message id with args, of kind (nil for
// none).
func sayError(kind error, id string, args ...any) error {
	return &saidError{kind: kind, phrase: say(id, args...)}
}

func (e *saidError) Error() string {
	if e.kind == nil {
		return e.in(english)
	}
	return e.kind.Error() + ": " + e.in(english)
}

func (e *saidError) Unwrap() error { return e.kind }

// sayErr is err as a person reads it in w's language: a phrase's
// translation, else err's own text without its "invalid: " kind.
func sayErr(w *i18n.Printer, err error) string {
	var s *saidError
	if errors.As(err, &s) {
		return s.in(w)
	}
	return strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
}
