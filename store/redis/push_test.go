package redis_test

import (
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestPushConformance runs the Web Push contract on two stores sharing
// one Redis and key prefix, as two bridge instances do.
func TestPushConformance(t *testing.T) {
	brokertest.TestPush(t, func(t *testing.T) (broker.PushStore, broker.PushStore) {
		cfg := redistest.Shared(t)
		return open(t, cfg), open(t, cfg)
	})
}
