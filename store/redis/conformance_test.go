package redis_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// quiet is the logger of stores under test: warnings only.
var quiet = slog.New(slog.NewTextHandler(testWriter{}, &slog.HandlerOptions{Level: slog.LevelError}))

type testWriter struct{}

func (testWriter) Write(p []byte) (int, error) { return len(p), nil }

func open(t *testing.T, cfg redisstore.Config) *redisstore.Store {
	t.Helper()
	s, err := redisstore.Open(context.Background(), cfg, quiet)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestConformanceShared runs the store contract against the shared Redis,
// each test under its own key prefix.
func TestConformanceShared(t *testing.T) {
	brokertest.TestStore(t, func(t *testing.T) broker.Store {
		return open(t, redistest.Shared(t))
	})
}

// TestConformanceCluster runs the store contract against a three-master
// Redis Cluster, where every script must keep to one hash slot.
func TestConformanceCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	addrs := redistest.StartCluster(t)
	cfg := func(t *testing.T) redisstore.Config {
		return redisstore.Config{Addrs: addrs, Cluster: true, KeyPrefix: t.Name() + ":"}
	}
	brokertest.TestStore(t, func(t *testing.T) broker.Store { return open(t, cfg(t)) })
	t.Run("FeedAcrossStores", func(t *testing.T) { testFeedAcrossStores(t, cfg(t)) })
	t.Run("CycleRoundTrips", func(t *testing.T) { testCycleRoundTrips(t, cfg(t), 6, 7) })
	t.Run("DeadReservation", func(t *testing.T) { testTakesOverDeadReservation(t, cfg(t)) })
}

// TestConformanceSentinel runs the store contract through a sentinel that
// monitors a private server.
func TestConformanceSentinel(t *testing.T) {
	master, _ := redistest.StartServer(t)
	sentinel := startSentinel(t, master)
	cfg := func(t *testing.T) redisstore.Config {
		return redisstore.Config{Addrs: []string{sentinel}, MasterName: "mymaster", KeyPrefix: t.Name() + ":"}
	}
	brokertest.TestStore(t, func(t *testing.T) broker.Store { return open(t, cfg(t)) })
	t.Run("FeedAcrossStores", func(t *testing.T) { testFeedAcrossStores(t, cfg(t)) })
	t.Run("CycleRoundTrips", func(t *testing.T) { testCycleRoundTrips(t, cfg(t), 4, 4) })
	t.Run("DeadReservation", func(t *testing.T) { testTakesOverDeadReservation(t, cfg(t)) })
}
