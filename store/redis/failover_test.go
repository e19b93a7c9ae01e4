package redis_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestSentinelFailover kills the master behind a sentinel: the sentinel
// promotes the replica and the same Store carries on with the pending
// question, and its watchers are told to re-check.
func TestSentinelFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a Sentinel failover")
	}
	master := redistest.Start(t)
	host, port, _ := strings.Cut(master.Addr, ":")
	replica := redistest.Start(t, "--replicaof", host, port)
	rc := goredis.NewClient(&goredis.Options{Addr: replica.Addr})
	defer rc.Close()
	eventually(t, 10*time.Second, "replica in sync", func() bool {
		info, _ := rc.Info(context.Background(), "replication").Result()
		return strings.Contains(info, "master_link_status:up")
	})
	dir := t.TempDir()
	conf := dir + "/sentinel.conf"
	body := "sentinel monitor mymaster " + host + " " + port + " 1\n" +
		"sentinel down-after-milliseconds mymaster 500\nsentinel failover-timeout mymaster 5000\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	sentinel := redistest.Start(t, conf, "--sentinel")

	s := open(t, redisstore.Config{Addrs: []string{sentinel.Addr}, MasterName: "mymaster", KeyPrefix: "failover:"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	// Make sure the replica has the question before the master dies.
	if n, err := s.Client().Do(ctx, "WAIT", 1, 5000).Int(); err != nil || n < 1 {
		t.Fatalf("WAIT for the replica = %d, %v", n, err)
	}
	watch := s.Watch(ctx)

	master.Kill()
	var got *broker.Question
	eventually(t, 30*time.Second, "the store reads from the promoted replica", func() bool {
		cctx, ccancel := context.WithTimeout(ctx, time.Second)
		defer ccancel()
		var err error
		got, err = s.Get(cctx, q.ID)
		return err == nil
	})
	if got.Status != broker.StatusPending {
		t.Fatalf("question after failover = %s, want pending", got.Status)
	}
	deadline := time.After(30 * time.Second)
	for hint := (broker.Resolved{ID: "x"}); hint.ID != ""; {
		select {
		case hint = <-watch:
		case <-deadline:
			t.Fatal("watcher was not told to re-check after the failover")
		}
	}
	eventually(t, 30*time.Second, "Resolve after failover", func() bool {
		cctx, ccancel := context.WithTimeout(ctx, time.Second)
		defer ccancel()
		_, err := s.Resolve(cctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, Reason: "after failover"})
		return err == nil
	})
}
