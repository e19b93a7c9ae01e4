package brokertest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var watchTests = []storeTest{
	{"SeesResolution", testWatchSees},
	{"EveryWatcher", testWatchMany},
	{"NoResolutionIsMissed", testWatchBurst},
	{"ClosesWithContext", testWatchCloses},
	{"SaysWhichHaveCallbacks", testWatchCallback},
}

// testWatchCallback checks that the resolving instance's hint says when
// the question has a callback, and no hint says so of one without.
func testWatchCallback(t *testing.T, s broker.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := baseTime()
	plain := NewQuestion(broker.NewID(), "a1", now)
	hooked := NewQuestion(broker.NewID(), "a1", now)
	hooked.CallbackURL = "https://agent.example/cb"
	mustCreate(t, s, plain)
	mustCreate(t, s, hooked)
	ch := s.Watch(ctx)
	mustResolve(t, s, plain.ID, answeredAt(now, "Postgres"))
	mustResolve(t, s, hooked.ID, answeredAt(now, "Postgres"))
	timer := time.NewTimer(storeWait)
	defer timer.Stop()
	for {
		select {
		case r, ok := <-ch:
			if !ok {
				t.Fatal("resolution feed closed early")
			}
			if r.ID == plain.ID && r.Callback {
				t.Fatalf("hint %+v says a question without a callback has one", r)
			}
			if r.ID == hooked.ID && r.Callback {
				return
			}
		case <-timer.C:
			t.Fatalf("no hint for %s said it has a callback within %v", hooked.ID, storeWait)
		}
	}
}

// awaitID reads ch until it carries id, and fails t after storeWait, or
// when id arrives without its agent. Empty hints are skipped: the id must
// still arrive.
func awaitID(t *testing.T, ch <-chan broker.Resolved, id, agent string) {
	t.Helper()
	timer := time.NewTimer(storeWait)
	defer timer.Stop()
	for {
		select {
		case got, ok := <-ch:
			if !ok {
				t.Fatalf("resolution feed closed before %s arrived", id)
			}
			if got.ID == id {
				if got.Agent != agent {
					t.Fatalf("resolution feed: %s arrived with agent %q, want %q", id, got.Agent, agent)
				}
				return
			}
		case <-timer.C:
			t.Fatalf("resolution feed: no %s within %v", id, storeWait)
		}
	}
}

// testWatchSees checks that Watch is subscribed when it returns: a
// resolution made right after the call is on the feed.
func testWatchSees(t *testing.T, s broker.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := baseTime()
	q := NewQuestion(broker.NewID(), "a1", now)
	mustCreate(t, s, q)
	ch := s.Watch(ctx)
	mustResolve(t, s, q.ID, answeredAt(now, "Postgres"))
	awaitID(t, ch, q.ID, "a1")
}

func testWatchMany(t *testing.T, s broker.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := baseTime()
	chs := []<-chan broker.Resolved{s.Watch(ctx), s.Watch(ctx), s.Watch(ctx)}
	for i, id := range newIDs(2) {
		agent := fmt.Sprintf("agent-%d", i)
		mustCreate(t, s, NewQuestion(id, agent, now))
		mustResolve(t, s, id, answeredAt(now, "SQLite"))
		for _, ch := range chs {
			awaitID(t, ch, id, agent)
		}
	}
}

// testWatchBurst resolves many questions while one watcher reads. Every id
// must arrive, unless an empty hint ("re-check everything") arrives after
// the question was resolved.
func testWatchBurst(t *testing.T, s broker.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := baseTime()
	const n = 50
	q := newIDs(n)
	index := map[string]int{}
	for i, id := range q {
		index[id] = i
		mustCreate(t, s, NewQuestion(id, "a1", now))
	}
	ch := s.Watch(ctx)
	var resolved atomic.Int32
	done := make(chan error, 1)
	go func() {
		for _, id := range q {
			if _, err := s.Resolve(ctx, id, answeredAt(now, "Postgres")); err != nil {
				done <- err
				return
			}
			resolved.Add(1)
		}
		done <- nil
	}()
	covered := make([]bool, n)
	left := n
	timer := time.NewTimer(storeWait)
	defer timer.Stop()
	for left > 0 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			done = nil
		case r, ok := <-ch:
			if !ok {
				t.Fatal("resolution feed closed early")
			}
			upto := 0
			if r.ID == "" {
				upto = int(resolved.Load())
			} else if i, known := index[r.ID]; known {
				if !covered[i] {
					covered[i] = true
					left--
				}
				continue
			}
			for i := range upto {
				if !covered[i] {
					covered[i] = true
					left--
				}
			}
		case <-timer.C:
			t.Fatalf("resolution feed: %d of %d resolutions never announced within %v", left, n, storeWait)
		}
	}
}

func testWatchCloses(t *testing.T, s broker.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := s.Watch(ctx)
	cancel()
	timer := time.NewTimer(storeWait)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timer.C:
			t.Fatalf("resolution feed still open %v after its context ended", storeWait)
		}
	}
}

var purgeTests = []storeTest{
	{"RemovesResolvedBefore", testPurge},
}

func testPurge(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := newIDs(4)
	// q0: resolved 2h ago, delivered; q1: resolved 10m ago; q2: pending
	// for 3h; q3: resolved 3h ago, delivery given up.
	resolvedAt := []time.Duration{-2 * time.Hour, -10 * time.Minute, 0, -3 * time.Hour}
	for i, id := range q {
		nq := NewQuestion(id, "a1", now.Add(-4*time.Hour))
		nq.SessionID, nq.ToolCallID = "s1", "call-"+id
		if i == 0 || i == 3 {
			nq.CallbackURL = "https://agent.example/cb"
		}
		mustCreate(t, s, nq)
		m := broker.MessageRef{Channel: "telegram", Chat: "100", MessageID: "m-" + id, PostedAt: nq.CreatedAt}
		if err := s.AddMessage(ctx, id, m); err != nil {
			t.Fatalf("AddMessage: %v", err)
		}
		if i != 2 {
			mustResolve(t, s, id, answeredAt(now.Add(resolvedAt[i]), "Postgres"))
		}
	}
	for i, state := range map[int]string{0: broker.DeliveryDelivered, 3: broker.DeliveryFailed} {
		ds := deliveriesOf(t, s, q[i])
		if len(ds) != 1 {
			t.Fatalf("Deliveries(%s) = %+v, want one", q[i], ds)
		}
		ds[0].State, ds[0].Attempts = state, 1
		if err := s.UpdateDelivery(ctx, ds[0]); err != nil {
			t.Fatalf("UpdateDelivery: %v", err)
		}
	}

	n, err := s.Purge(ctx, now.Add(-time.Hour))
	if err != nil {
		t.Fatalf("Purge: %v", err)
	}
	if n != 2 {
		t.Fatalf("Purge removed %d questions, want 2", n)
	}
	for _, i := range []int{0, 3} {
		_, err := s.Get(ctx, q[i])
		wantErr(t, "Get of a purged question", err, broker.ErrNotFound)
		_, err = s.LookupMessage(ctx, "telegram", "100", "m-"+q[i])
		wantErr(t, "LookupMessage of a purged question's copy", err, broker.ErrNotFound)
		if ds := deliveriesOf(t, s, q[i]); len(ds) != 0 {
			t.Fatalf("Deliveries of a purged question = %+v, want none", ds)
		}
	}
	for _, i := range []int{1, 2} {
		mustGet(t, s, q[i])
		got, err := s.LookupMessage(ctx, "telegram", "100", "m-"+q[i])
		if err != nil || got != q[i] {
			t.Fatalf("LookupMessage of a kept question = %q, %v; want %s", got, err, q[i])
		}
	}
	evs, err := s.Events(ctx, "", 0, 100)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	if len(evs) != 1 || evs[0].QuestionID != q[1] {
		t.Fatalf("Events after Purge = %+v, want only %s's", evs, q[1])
	}
	pending, err := s.List(ctx, broker.Filter{Status: broker.StatusPending})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	wantIDs(t, "pending after Purge", questionIDs(pending), []string{q[2]})

	if n, err := s.Purge(ctx, now.Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("second Purge = %d, %v; want 0, nil", n, err)
	}
	// The idempotency key of a purged question is free again.
	again := NewQuestion(broker.NewID(), "a1", now)
	again.SessionID, again.ToolCallID = "s1", "call-"+q[0]
	mustCreate(t, s, again)
}

var healthTests = []storeTest{
	{"Ping", testPing},
	{"ClosedIsUnavailable", testClosedUnavailable},
}

func testPing(t *testing.T, s broker.Store) {
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
}

func testClosedUnavailable(t *testing.T, s broker.Store) {
	ctx := context.Background()
	q := NewQuestion(broker.NewID(), "a1", baseTime())
	mustCreate(t, s, q)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	wantErr(t, "Ping after Close", s.Ping(ctx), broker.ErrUnavailable)
	_, err := s.Get(ctx, q.ID)
	wantErr(t, "Get after Close", err, broker.ErrUnavailable)
	_, err = s.Resolve(ctx, q.ID, answeredAt(baseTime(), "Postgres"))
	wantErr(t, "Resolve after Close", err, broker.ErrUnavailable)
}
