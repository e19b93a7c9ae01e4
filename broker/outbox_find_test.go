package broker_test

import (
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// A post looks for an earlier copy only when an earlier attempt may have
// reached the platform without its outcome being recorded.
func TestPostLooksForItsCopyOnlyAfterAnUnknownOutcome(t *testing.T) {
	e := newEnv(t, nil)
	now := time.Now()
	tests := []struct {
		name string
		task broker.PlatformTask
		want bool
	}{
		{"first attempt", broker.PlatformTask{UpdatedAt: now}, false},
		{"after a lost connection", broker.PlatformTask{Attempts: 1, LastError: "unreachable: EOF", UpdatedAt: now}, true},
		{"after a timeout", broker.PlatformTask{Attempts: 2, LastError: "timeout: context deadline exceeded", UpdatedAt: now}, true},
		{"after a rate limit", broker.PlatformTask{Attempts: 1, LastError: "rate limited: 429", UpdatedAt: now}, false},
		{"after a refusal", broker.PlatformTask{Attempts: 1, LastError: "permanent: channel_not_found", UpdatedAt: now}, false},
		{"put back by pacing a while ago", broker.PlatformTask{UpdatedAt: now.Add(-5 * time.Second)}, false},
		{"a claim that ran out", broker.PlatformTask{UpdatedAt: now.Add(-10 * time.Minute)}, true},
		{"a claim that ran out after a rate limit", broker.PlatformTask{Attempts: 1, LastError: "rate limited: 429", UpdatedAt: now.Add(-10 * time.Minute)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.b.MayHavePosted(tt.task, now); got != tt.want {
				t.Errorf("MayHavePosted = %v, want %v", got, tt.want)
			}
		})
	}
}
