package api_test

import (
	"testing"
	"time"
)

// TestDurationsWithDays: the documented range 10s–7d is accepted as
// written, in days and weeks too, for timeout, lease and wait.
func TestDurationsWithDays(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		name    string
		body    map[string]any
		status  int
		timeout time.Duration
	}{
		{"timeout 7d, the maximum", map[string]any{"question": "x", "timeout": "7d", "wait": "0s"}, 202, 7 * 24 * time.Hour},
		{"timeout 1w", map[string]any{"question": "x", "timeout": "1w", "wait": "0s"}, 202, 7 * 24 * time.Hour},
		{"timeout 1d12h", map[string]any{"question": "x", "timeout": "1d12h", "wait": "0s"}, 202, 36 * time.Hour},
		{"lease 2d", map[string]any{"question": "x", "lease": "2d", "wait": "0s"}, 202, 30 * time.Minute},
		{"timeout 8d is too long", map[string]any{"question": "x", "timeout": "8d", "wait": "0s"}, 400, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := s.call(t, "POST", "/v1/questions", agentKey, tt.body)
			if status != tt.status {
				t.Fatalf("got %d %v, want %d", status, body, tt.status)
			}
			if status != 202 {
				if _, msg := errField(body); msg == "" {
					t.Fatalf("refusal without a message: %v", body)
				}
				return
			}
			q, err := s.b.Get(t.Context(), "claude", body["id"].(string))
			if err != nil {
				t.Fatal(err)
			}
			if got := q.ExpiresAt.Sub(q.CreatedAt); got != tt.timeout {
				t.Fatalf("deadline %v after creation, want %v", got, tt.timeout)
			}
		})
	}
	t.Run("wait=1d on a long-poll", func(t *testing.T) {
		_, body := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"question": "x", "wait": "0s"})
		id := body["id"].(string)
		if _, err := s.b.Cancel(t.Context(), "claude", id, ""); err != nil {
			t.Fatal(err)
		}
		if status, b := s.call(t, "GET", "/v1/questions/"+id+"?wait=1d", agentKey, nil); status != 200 {
			t.Fatalf("wait=1d: %d %v, want 200", status, b)
		}
		status, b := s.call(t, "GET", "/v1/questions/"+id+"?wait=2x", agentKey, nil)
		if _, msg := errField(b); status != 400 || msg != `wait: "2x" is not a duration (use e.g. 30s, 30m, 2h, 7d)` {
			t.Fatalf("wait=2x: %d %q", status, msg)
		}
	})
}
