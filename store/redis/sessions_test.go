package redis_test

import (
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestSessionConformance runs the sessions contract on two stores sharing
// one Redis and key prefix, as two bridge instances do.
func TestSessionConformance(t *testing.T) {
	brokertest.TestSessions(t, func(t *testing.T) (broker.Sessions, broker.Sessions) {
		cfg := redistest.Shared(t)
		return open(t, cfg), open(t, cfg)
	})
}
