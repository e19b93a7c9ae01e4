package brokertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var createTests = []storeTest{
	{"RoundTripFullQuestion", testCreateRoundTrip},
	{"StoredCopyIsIndependent", testCreateIndependent},
	{"IdempotentOnToolCallID", testCreateIdempotent},
	{"IdempotencyKeyParts", testCreateKeyParts},
	{"EmptyToolCallIDNeverDeduplicates", testCreateEmptyToolCall},
	{"IdempotentUnderConcurrency", testCreateConcurrent},
	{"IdempotentAfterResolve", testCreateAfterResolve},
	{"IDTaken", testCreateIDTaken},
	{"GetUnknown", testGetUnknown},
}

func testCreateRoundTrip(t *testing.T, s broker.Store) {
	ctx := context.Background()
	want := FullQuestion(broker.NewID(), "agent-ü", baseTime())
	got, created, err := s.Create(ctx, want.Clone(), nil)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if !created {
		t.Fatal("Create: created = false for a new question")
	}
	sameQuestion(t, "Create result", got, want)
	sameQuestion(t, "Get", mustGet(t, s, want.ID), want)
	for _, tm := range []time.Time{got.CreatedAt, got.ExpiresAt, got.LeaseUntil, got.Reminders[0]} {
		if tm.Location() != time.UTC {
			t.Errorf("time %v has location %v, want UTC", tm, tm.Location())
		}
	}
}

func testCreateIndependent(t *testing.T, s broker.Store) {
	q := FullQuestion(broker.NewID(), "a1", baseTime())
	want := q.Clone()
	got := mustCreate(t, s, q)
	// Changing the caller's values must not change what is stored.
	q.Prompts[0].Question = "changed"
	q.Targets[0].Chat = "changed"
	got.Context = "changed"
	got.Selections[1] = []int{1}
	sameQuestion(t, "Get after changing the caller's copies", mustGet(t, s, want.ID), want)
	g1 := mustGet(t, s, want.ID)
	g1.Responders[0] = "changed"
	sameQuestion(t, "second Get after changing the first Get's result", mustGet(t, s, want.ID), want)
}

func testCreateIdempotent(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	first := NewQuestion(broker.NewID(), "a1", now)
	first.SessionID, first.ToolCallID = "s1", "call-1"
	mustCreate(t, s, first.Clone())

	again := NewQuestion(broker.NewID(), "a1", now.Add(time.Second))
	again.SessionID, again.ToolCallID = "s1", "call-1"
	again.Prompts[0].Question = "A different body"
	got, created, err := s.Create(ctx, again, nil)
	if err != nil {
		t.Fatalf("Create with the same key: %v", err)
	}
	if created {
		t.Fatal("Create with the same (agent, session, tool call): created = true, want false")
	}
	sameQuestion(t, "Create with the same key returns the existing question", got, first)
	_, err = s.Get(ctx, again.ID)
	wantErr(t, "Get of the id of the deduplicated question", err, broker.ErrNotFound)
	all, err := s.List(ctx, broker.Filter{Agent: "a1"})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	wantIDs(t, "questions of a1", questionIDs(all), []string{first.ID})

	// A retry of the very same Create (same id and key) is not an id
	// collision: it gets the stored question back.
	got, created, err = s.Create(ctx, first.Clone(), nil)
	if err != nil || created {
		t.Fatalf("retried Create = created %v, %v; want the existing question, created false", created, err)
	}
	sameQuestion(t, "retried Create", got, first)
}

func testCreateKeyParts(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	base := NewQuestion(broker.NewID(), "a1", now)
	base.SessionID, base.ToolCallID = "s1", "call-1"
	mustCreate(t, s, base)
	cases := []struct{ name, agent, session, call string }{
		{"OtherAgent", "a2", "s1", "call-1"},
		{"OtherSession", "a1", "s2", "call-1"},
		{"NoSession", "a1", "", "call-1"},
		{"OtherToolCall", "a1", "s1", "call-2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := NewQuestion(broker.NewID(), c.agent, now)
			q.SessionID, q.ToolCallID = c.session, c.call
			got, created, err := s.Create(ctx, q, nil)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			if !created || got.ID != q.ID {
				t.Fatalf("Create: got %s created=%v, want a separate question %s", got.ID, created, q.ID)
			}
		})
	}
}

func testCreateEmptyToolCall(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	for i, id := range newIDs(3) {
		q := NewQuestion(id, "a1", now.Add(time.Duration(i)*time.Second))
		q.SessionID = "s1"
		got, created, err := s.Create(ctx, q, nil)
		if err != nil {
			t.Fatalf("Create #%d: %v", i, err)
		}
		if !created || got.ID != id {
			t.Fatalf("Create #%d with empty tool_call_id: got %s created=%v, want new question %s", i, got.ID, created, id)
		}
	}
	all, err := s.List(ctx, broker.Filter{SessionID: "s1"})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(all) != 3 {
		t.Fatalf("List(session s1) has %d questions, want 3", len(all))
	}
}

func testCreateConcurrent(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	const n = 20
	qids := newIDs(n)
	got := make([]string, n)
	createdN := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q := NewQuestion(qids[i], "a1", now)
			q.SessionID, q.ToolCallID = "s1", "call-race"
			st, created, err := s.Create(ctx, q, nil)
			if err != nil {
				t.Errorf("Create #%d: %v", i, err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			got[i] = st.ID
			if created {
				createdN++
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	if createdN != 1 {
		t.Fatalf("%d concurrent Creates with one key: %d created, want exactly 1", n, createdN)
	}
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("concurrent Creates with one key returned different questions: %v", got)
		}
	}
}

func testCreateAfterResolve(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := NewQuestion(broker.NewID(), "a1", now)
	q.SessionID, q.ToolCallID = "s1", "call-1"
	mustCreate(t, s, q)
	want := mustResolve(t, s, q.ID, broker.Resolution{Status: broker.StatusCancelled, Reason: "gone", ResolvedAt: now.Add(time.Second)})

	again := NewQuestion(broker.NewID(), "a1", now.Add(2*time.Second))
	again.SessionID, again.ToolCallID = "s1", "call-1"
	got, created, err := s.Create(ctx, again, nil)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	if created {
		t.Fatal("Create after the key's question was cancelled: created = true, want the cancelled question back")
	}
	sameQuestion(t, "Create returns the closed question", got, want)
}

func testCreateIDTaken(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	first := NewQuestion(broker.NewID(), "a1", now)
	mustCreate(t, s, first)
	cases := []struct{ name, agent, session, call string }{
		{"NoToolCall", "a2", "", ""},
		{"OtherKey", "a2", "s9", "call-9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dup := NewQuestion(first.ID, c.agent, now.Add(time.Minute))
			dup.SessionID, dup.ToolCallID = c.session, c.call
			dup.Prompts[0].Question = "Should not be stored"
			_, _, err := s.Create(ctx, dup, nil)
			wantErr(t, "Create with an id in use", err, broker.ErrIDTaken)
			sameQuestion(t, "Get after the failed Create", mustGet(t, s, first.ID), first)
			if c.call != "" {
				// The failed Create must not have claimed its key.
				other := NewQuestion(broker.NewID(), c.agent, now)
				other.SessionID, other.ToolCallID = c.session, c.call
				mustCreate(t, s, other)
			}
		})
	}
}

func testGetUnknown(t *testing.T, s broker.Store) {
	_, err := s.Get(context.Background(), "zzzzzz")
	wantErr(t, "Get(unknown)", err, broker.ErrNotFound)
}
