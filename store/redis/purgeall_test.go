package redis_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestPurgeReadsTheIndexOfEveryQuestion: Resolve indexes no resolution
// (no done set); Purge finds the questions resolved before its time
// through the index of every question, in batches, past many open and
// recently resolved ones it keeps; it drops the entries of records that
// are gone, and empties the done sets older versions left.
func TestPurgeReadsTheIndexOfEveryQuestion(t *testing.T) {
	s := open(t, redistest.Shared(t))
	ctx := context.Background()
	rc := s.Client()
	now := time.Now()
	created := now.Add(-4 * time.Hour)
	// One shard, so that batches of 200 meet kept entries.
	first := broker.NewID()
	all, done := s.ShardIndexNames(first)
	sameShard := func() string { return redisstore.IDInShardOf(first) }
	var old, recent, open []string
	for i := range 520 {
		id := first
		if i > 0 {
			id = sameShard()
		}
		q := brokertest.NewQuestion(id, "purge-agent", created.Add(time.Duration(i)*time.Millisecond))
		for {
			_, _, err := s.Create(ctx, q, nil)
			if err == nil {
				break
			}
			if !errors.Is(err, broker.ErrIDTaken) {
				t.Fatal(err)
			}
			q.ID = sameShard()
		}
		var at time.Time
		switch i % 3 {
		case 0:
			open = append(open, q.ID)
			continue
		case 1:
			at = now.Add(-2 * time.Hour)
			old = append(old, q.ID)
		case 2:
			at = now.Add(-10 * time.Minute)
			recent = append(recent, q.ID)
		}
		if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := rc.Exists(ctx, done).Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS %q = %d, %v after resolutions; want no done set", done, n, err)
	}
	// As older versions left them: done entries, and a record gone.
	stale := []goredis.Z{{Score: float64(now.Add(-3 * time.Hour).UnixMicro()), Member: "gone01"},
		{Score: float64(now.Add(-time.Minute).UnixMicro()), Member: "later1"}}
	if err := rc.ZAdd(ctx, done, stale...).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.ZAdd(ctx, all, goredis.Z{Score: float64(created.UnixMicro()), Member: "gone01"}).Err(); err != nil {
		t.Fatal(err)
	}

	n, err := s.Purge(ctx, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if n != len(old) {
		t.Fatalf("Purge removed %d questions, want %d", n, len(old))
	}
	for _, id := range old {
		if _, err := s.Get(ctx, id); !errors.Is(err, broker.ErrNotFound) {
			t.Fatalf("Get(%s) resolved before the purge's time: %v, want ErrNotFound", id, err)
		}
		if _, err := rc.ZScore(ctx, all, id).Result(); err == nil {
			t.Fatalf("purged %s is still in %q", id, all)
		}
	}
	for _, ids := range [][]string{recent, open} {
		for _, id := range ids {
			if _, err := s.Get(ctx, id); err != nil {
				t.Fatalf("Get(%s), kept by the purge: %v", id, err)
			}
		}
	}
	if _, err := rc.ZScore(ctx, all, "gone01").Result(); err == nil {
		t.Fatal("the entry of a record that is gone is still indexed")
	}
	left, err := rc.ZRange(ctx, done, 0, -1).Result()
	if err != nil || fmt.Sprint(left) != "[later1]" {
		t.Fatalf("done set after Purge = %v, %v; want only the entry after the purge's time", left, err)
	}
	if n, err := s.Purge(ctx, now.Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("second Purge = %d, %v; want 0", n, err)
	}
}
