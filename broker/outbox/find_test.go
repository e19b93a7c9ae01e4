package outbox_test

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
		{"after a lost connection", broker.PlatformTask{Attempts: 1, ErrorClass: broker.FailUnreachable, LastError: "EOF", UpdatedAt: now}, true},
		{"after a timeout", broker.PlatformTask{Attempts: 2, ErrorClass: broker.FailTimeout, LastError: "context deadline exceeded", UpdatedAt: now}, true},
		{"after a rate limit", broker.PlatformTask{Attempts: 1, ErrorClass: broker.FailRateLimited, LastError: "429", UpdatedAt: now}, false},
		{"after a refusal", broker.PlatformTask{Attempts: 1, ErrorClass: broker.FailPermanent, LastError: "channel_not_found", UpdatedAt: now}, false},
		{"put back by pacing a while ago", broker.PlatformTask{UpdatedAt: now.Add(-5 * time.Second)}, false},
		{"a claim that ran out", broker.PlatformTask{UpdatedAt: now.Add(-10 * time.Minute)}, true},
		{"a claim that ran out after a rate limit", broker.PlatformTask{Attempts: 1, ErrorClass: broker.FailRateLimited, LastError: "429", UpdatedAt: now.Add(-10 * time.Minute)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := e.ob.MayHavePosted(tt.task, now); got != tt.want {
				t.Errorf("MayHavePosted = %v, want %v", got, tt.want)
			}
		})
	}
}
