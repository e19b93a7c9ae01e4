package api_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
)

// Every broker error has one answer, whoever answers it: the status, the
// code and what the client reads, with no detail from below the broker.
func TestStatusOf(t *testing.T) {
	closed := &broker.Question{ID: "k7m2qx", Status: broker.StatusAnswered}
	tests := []struct {
		name      string
		err       error
		status    int
		code, msg string
		field     string
		state     broker.Status
	}{
		{"limit", &broker.LimitError{What: "pending questions", Limit: 3}, 429, "limit", "", "", ""},
		{"field", fmt.Errorf("ask: %w", &broker.FieldError{Field: "question", Message: "must not be empty"}), 400, "invalid", "", "question", ""},
		{"closed question", &broker.ClosedError{Question: closed}, 409, "closed", "question k7m2qx is answered", "", broker.StatusAnswered},
		{"closed question from a store", fmt.Errorf("sqlite: resolve k7m2qx: %w", &broker.ClosedError{Question: closed}), 409, "closed", "question k7m2qx is answered", "", broker.StatusAnswered},
		{"closed", fmt.Errorf("%w: the question was cancelled", broker.ErrClosed), 409, "closed", "the question was cancelled", "", ""},
		{"not found", fmt.Errorf("%w: no question k7m2qx", broker.ErrNotFound), 404, "not_found", "no question k7m2qx", "", ""},
		{"not found from a store", fmt.Errorf("sqlite: get /var/lib/x.db: %w", broker.ErrNotFound), 404, "not_found", "there is no such question", "", ""},
		{"conflict", fmt.Errorf("%w: the tool call id was used for another question", broker.ErrConflict), 409, "conflict", "the tool call id was used for another question", "", ""},
		{"invalid", fmt.Errorf("%w: wait: too long", broker.ErrInvalid), 400, "invalid", "wait: too long", "", ""},
		{"forbidden", fmt.Errorf("%w: only the asker may", broker.ErrForbidden), 403, "forbidden", "only the asker may", "", ""},
		{"unavailable", fmt.Errorf("redis: dial 10.0.0.1:6379: %w", broker.ErrUnavailable), 503, "unavailable", "the store is unavailable; try again shortly", "", ""},
		{"unknown", errors.New("sqlite: disk I/O error at /var/lib/x.db"), 500, "internal", "internal error", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := api.StatusOf(tt.err)
			if got.Status != tt.status || got.Code != tt.code || got.Field != tt.field || got.State != tt.state {
				t.Fatalf("StatusOf(%v) = %+v, want %d %s field %q state %q", tt.err, got, tt.status, tt.code, tt.field, tt.state)
			}
			if tt.msg != "" && got.Message != tt.msg {
				t.Fatalf("message %q, want %q", got.Message, tt.msg)
			}
			if got.Message == "" {
				t.Fatal("no message")
			}
		})
	}
}
