package brokertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var limitTests = []storeTest{
	{"PendingCapRefusesBeyond", testCapRefuses},
	{"PendingCapKeepsReattaching", testCapReattach},
	{"PendingCapFreedByResolve", testCapFreed},
	{"PendingCapCountsUncappedCreates", testCapCountsUncapped},
	{"PendingCapUnderConcurrency", testCapConcurrent},
	{"CancelSessionCancelsAll", testCancelSessionAll},
	{"CountPendingOfEveryAgent", testCountPending},
}

// testCountPending: CountPending counts the pending questions of every
// agent, once each, and follows resolutions; refused and re-attached
// creates add nothing.
func testCountPending(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	want := func(n int, after string) {
		t.Helper()
		got, err := s.CountPending(ctx)
		if err != nil || got != n {
			t.Fatalf("CountPending after %s = %d, %v; want %d", after, got, err, n)
		}
	}
	want(0, "nothing")
	a := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	mustCreate(t, s, NewQuestion(broker.NewID(), "a2", now))
	want(3, "three creates by two agents")
	call := NewQuestion(broker.NewID(), "a2", now)
	call.SessionID, call.ToolCallID = "s1", "call-1"
	mustCreate(t, s, call)
	again := NewQuestion(broker.NewID(), "a2", now)
	again.SessionID, again.ToolCallID = "s1", "call-1"
	if _, created, err := s.Create(ctx, again, nil); err != nil || created {
		t.Fatalf("re-attaching create: created = %v, err = %v", created, err)
	}
	wantRefused(t, s, NewQuestion(broker.NewID(), "a1", now), 2)
	want(4, "a re-attach and a refused create")
	mustResolve(t, s, a.ID, answeredAt(now, "Postgres"))
	want(3, "a resolution")
	if _, err := s.Purge(ctx, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	want(3, "a purge of the resolved question")
}

// createCapped stores q under cap max and fails t on any error.
func createCapped(t *testing.T, s broker.Store, q *broker.Question, max int) *broker.Question {
	t.Helper()
	got, created, err := s.CreateCapped(context.Background(), q, nil, max)
	if err != nil {
		t.Fatalf("CreateCapped(%s, %d): %v", q.ID, max, err)
	}
	if !created {
		t.Fatalf("CreateCapped(%s, %d): created = false, want true", q.ID, max)
	}
	return got
}

// wantRefused fails t unless CreateCapped refuses q for the cap max, with
// a *broker.LimitError naming max, and stores nothing.
func wantRefused(t *testing.T, s broker.Store, q *broker.Question, max int) {
	t.Helper()
	ctx := context.Background()
	got, created, err := s.CreateCapped(ctx, q, nil, max)
	var le *broker.LimitError
	if !errors.As(err, &le) || !errors.Is(err, broker.ErrLimit) {
		t.Fatalf("CreateCapped beyond the cap = %v, %v, %v; want a *broker.LimitError", got, created, err)
	}
	if le.Limit != max || le.What != "pending questions" {
		t.Fatalf("LimitError = %+v, want Limit %d of pending questions", le, max)
	}
	if _, err := s.Get(ctx, q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("Get of a refused question: err = %v, want ErrNotFound", err)
	}
}

// pendingOf lists the agent's pending questions.
func pendingOf(t *testing.T, s broker.Store, agent string) []string {
	t.Helper()
	qs, err := s.List(context.Background(), broker.Filter{Agent: agent, Status: broker.StatusPending, Limit: 10000})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return questionIDs(qs)
}

func testCapRefuses(t *testing.T, s broker.Store) {
	now := baseTime()
	const max = 5
	for range max {
		createCapped(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	}
	refused := NewQuestion(broker.NewID(), "a1", now)
	refused.SessionID, refused.ToolCallID = "s1", "call-new"
	wantRefused(t, s, refused, max)
	wantRefused(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	if got := pendingOf(t, s, "a1"); len(got) != max {
		t.Fatalf("a1 has %d pending questions after refusals, want %d", len(got), max)
	}
	// The cap is per agent.
	createCapped(t, s, NewQuestion(broker.NewID(), "a2", now), max)
	// The refused key was not reserved: once there is room it creates.
	if _, err := s.Resolve(context.Background(), pendingOf(t, s, "a1")[0], answeredAt(now, "Postgres")); err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	createCapped(t, s, refused, max)
}

func testCapReattach(t *testing.T, s broker.Store) {
	now := baseTime()
	const max = 3
	first := NewQuestion(broker.NewID(), "a1", now)
	first.SessionID, first.ToolCallID = "s1", "call-1"
	createCapped(t, s, first, max)
	for range max - 1 {
		createCapped(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	}
	again := NewQuestion(broker.NewID(), "a1", now)
	again.SessionID, again.ToolCallID = "s1", "call-1"
	got, created, err := s.CreateCapped(context.Background(), again, nil, max)
	if err != nil || created || got == nil || got.ID != first.ID {
		t.Fatalf("re-asking at the cap = %v, created %v, %v; want question %s, created false", got, created, err, first.ID)
	}
}

func testCapFreed(t *testing.T, s broker.Store) {
	now := baseTime()
	const max = 2
	a := createCapped(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	b := createCapped(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	wantRefused(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	mustResolve(t, s, a.ID, answeredAt(now, "Postgres"))
	c := createCapped(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	wantRefused(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	mustResolve(t, s, b.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now})
	mustResolve(t, s, c.ID, broker.Resolution{Status: broker.StatusTimedOut, ResolvedAt: now})
	for range max {
		createCapped(t, s, NewQuestion(broker.NewID(), "a1", now), max)
	}
}

// testCapCountsUncapped: questions stored without a cap count against a
// cap set later.
func testCapCountsUncapped(t *testing.T, s broker.Store) {
	now := baseTime()
	for range 3 {
		mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	}
	wantRefused(t, s, NewQuestion(broker.NewID(), "a1", now), 3)
	createCapped(t, s, NewQuestion(broker.NewID(), "a1", now), 4)
}

// testCapConcurrent: many concurrent creates never overshoot the cap.
func testCapConcurrent(t *testing.T, s broker.Store) {
	now := baseTime()
	const max, tries = 10, 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	created, refused := 0, 0
	var failures []error
	for range tries {
		wg.Go(func() {
			_, ok, err := s.CreateCapped(context.Background(), NewQuestion(broker.NewID(), "a1", now), nil, max)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && ok:
				created++
			case errors.Is(err, broker.ErrLimit):
				refused++
			default:
				failures = append(failures, fmt.Errorf("created %v: %w", ok, err))
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("concurrent CreateCapped failed: %v", failures)
	}
	if created != max || refused != tries-max {
		t.Fatalf("%d concurrent creates under a cap of %d: %d created, %d refused; want %d and %d", tries, max, created, refused, max, tries-max)
	}
	if got := pendingOf(t, s, "a1"); len(got) != max {
		t.Fatalf("a1 has %d pending questions, want %d", len(got), max)
	}
}

// sessionSize is more questions than any store returns from one List.
const sessionSize = 2500

// testCancelSessionAll cancels a session of sessionSize pending questions
// through a broker on the store: every one ends cancelled.
func testCancelSessionAll(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	ids := newIDs(sessionSize)
	var wg sync.WaitGroup
	errs := make(chan error, len(ids))
	sem := make(chan struct{}, 16)
	for _, id := range ids {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			q := NewQuestion(id, "a1", now)
			q.SessionID = "big"
			if _, _, err := s.Create(ctx, q, nil); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("Create: %v", err)
	}
	other := NewQuestion(broker.NewID(), "a1", now)
	other.SessionID = "other"
	mustCreate(t, s, other)

	b, err := broker.New(broker.Config{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cancelled, err := b.CancelSession(ctx, "a1", "big", "")
	if err != nil {
		t.Fatalf("CancelSession: %v", err)
	}
	if len(cancelled) != len(ids) {
		t.Fatalf("CancelSession cancelled %d questions of a session of %d", len(cancelled), len(ids))
	}
	wantSet(t, "cancelled questions", questionIDs(cancelled), ids)
	left, err := s.List(ctx, broker.Filter{SessionID: "big", Status: broker.StatusPending})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(left) != 0 {
		t.Fatalf("%d questions of the session still pending after CancelSession", len(left))
	}
	if q := mustGet(t, s, other.ID); q.Status != broker.StatusPending {
		t.Fatalf("a question of another session is %s, want pending", q.Status)
	}
}
