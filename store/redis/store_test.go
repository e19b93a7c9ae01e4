package redis_test

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestEventRepair simulates a Resolve that died between its two round
// trips (the event never reached the log): the next Due logs it, once.
// Only on Cluster does Resolve take two round trips (elsewhere one script
// resolves and logs), so the store takes Cluster's steps here.
func TestEventRepair(t *testing.T) {
	cfg := redistest.Shared(t)
	s := open(t, cfg)
	s.ActAsCluster()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	q := brokertest.NewQuestion(broker.NewID(), "a1", now)
	q.SessionID = "s1"
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusDeclined, ResolvedAt: now}); err != nil {
		t.Fatal(err)
	}
	// Lose the event as a crash after the compare-and-set would.
	if err := s.Client().Del(ctx, cfg.KeyPrefix+"{ev}:log", cfg.KeyPrefix+"{ev}:ids", cfg.KeyPrefix+"{ev}:a:a1").Err(); err != nil {
		t.Fatal(err)
	}
	if evs, _ := s.Events(ctx, "", 0, 10); len(evs) != 0 {
		t.Fatalf("Events after losing the event = %+v, want none", evs)
	}
	for range 2 { // the second Due must not log it again
		if _, err := s.Due(ctx, now.Add(time.Minute), 10); err != nil {
			t.Fatalf("Due: %v", err)
		}
	}
	evs, err := s.Events(ctx, "a1", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].QuestionID != q.ID || evs[0].Status != broker.StatusDeclined || evs[0].SessionID != "s1" || !evs[0].At.Equal(now) {
		t.Fatalf("Events after Due = %+v, want the declined event of %s at %v", evs, q.ID, now)
	}
}

// TestWatchClosesWithStore: closing the store closes every watch channel
// even while their contexts live on.
func TestWatchClosesWithStore(t *testing.T) {
	s := open(t, redistest.Shared(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	chs := []<-chan broker.Resolved{s.Watch(ctx), s.Watch(ctx)}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i, ch := range chs {
		select {
		case _, ok := <-ch:
			for ok {
				_, ok = <-ch
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("watch channel %d still open after Close", i)
		}
	}
	if _, ok := <-s.Watch(ctx); ok {
		t.Fatal("Watch after Close gave an open channel")
	}
}

// TestSlowWatcher: a watcher that does not read loses ids but is told to
// re-check ("") once it reads again; other watchers are not held up.
func TestSlowWatcher(t *testing.T) {
	s := open(t, redistest.Shared(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow, fast := s.Watch(ctx), s.Watch(ctx)
	now := time.Now()
	n := redisstore.WatchBuffer + 16 // more than a watch channel holds
	got := make(chan int, 1)
	go func() {
		seen := map[string]bool{}
		for r := range fast {
			if r.ID != "" {
				seen[r.ID] = true
			}
			if len(seen) == n {
				got <- len(seen)
				return
			}
		}
	}()
	for range n {
		q := brokertest.NewQuestion(broker.NewID(), "a1", now)
		if _, _, err := s.Create(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the reading watcher did not see every id while another did not read")
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r := <-slow:
			if r.ID == "" {
				return
			}
		case <-deadline:
			t.Fatal("the slow watcher was never told to re-check")
		}
	}
}

// TestPurgeKeepsUndelivered: a question whose callback is still pending
// survives Purge until its delivery ends.
func TestPurgeKeepsUndelivered(t *testing.T) {
	s := open(t, redistest.Shared(t))
	ctx := context.Background()
	now := time.Now().UTC()
	q := brokertest.NewQuestion(broker.NewID(), "a1", now.Add(-time.Hour))
	q.CallbackURL = "https://agent.example/cb"
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(-30 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Purge(ctx, now); err != nil || n != 0 {
		t.Fatalf("Purge with the callback pending = %d, %v; want 0", n, err)
	}
	if _, err := s.Get(ctx, q.ID); err != nil {
		t.Fatalf("Get after Purge: %v", err)
	}
	ds, err := s.Deliveries(ctx, q.ID)
	if err != nil || len(ds) != 1 {
		t.Fatalf("Deliveries = %+v, %v", ds, err)
	}
	ds[0].State, ds[0].Attempts = broker.DeliveryDelivered, 1
	if err := s.UpdateDelivery(ctx, ds[0]); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Purge(ctx, now); err != nil || n != 1 {
		t.Fatalf("Purge after delivery = %d, %v; want 1", n, err)
	}
	if _, err := s.Get(ctx, q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("Get after the second Purge: %v, want ErrNotFound", err)
	}
}

// TestKeptBodyNotGivenToANewQuestion: a store keeps the bodies of the
// questions it wrote; a question purged and created again under the same
// id (here by another store sharing the server) must read as the new one,
// through Get and through Resolve's answer.
func TestKeptBodyNotGivenToANewQuestion(t *testing.T) {
	cfg := redistest.Shared(t)
	a, b := open(t, cfg), open(t, cfg)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	q := brokertest.NewQuestion(broker.NewID(), "a1", now)
	if _, _, err := a.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, q.ID); err != nil { // kept and decoded
		t.Fatal(err)
	}
	if _, err := a.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusDeclined, ResolvedAt: now}); err != nil {
		t.Fatal(err)
	}
	if n, err := b.Purge(ctx, now.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v; want 1 removed", n, err)
	}
	// Its audit trail gone too (past the audit retention), the id may be
	// given again.
	tag := fmt.Sprintf("%s{s%d}:", cfg.KeyPrefix, crc32.ChecksumIEEE([]byte(q.ID))%16)
	if err := b.Client().Del(ctx, tag+"au:"+q.ID).Err(); err != nil {
		t.Fatal(err)
	}
	again := brokertest.NewQuestion(q.ID, "a1", now)
	again.Prompts[0].Question = "A different question?"
	if _, _, err := b.Create(ctx, again, nil); err != nil {
		t.Fatal(err)
	}
	got, err := a.Get(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Prompts[0].Question != "A different question?" || got.Status != broker.StatusPending {
		t.Fatalf("Get after the id was reused = %q (%s), want the new question", got.Prompts[0].Question, got.Status)
	}
	res, err := a.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusDeclined, ResolvedAt: now})
	if err != nil {
		t.Fatal(err)
	}
	if res.Prompts[0].Question != "A different question?" {
		t.Fatalf("Resolve after the id was reused answered %q, want the new question", res.Prompts[0].Question)
	}
	// A copy handed out must not change what the store keeps.
	res.Prompts[0].Question = "changed by a caller"
	if got, err := a.Get(ctx, q.ID); err != nil || got.Prompts[0].Question != "A different question?" {
		t.Fatalf("Get after a caller changed its copy = %+v, %v", got, err)
	}
}
