package brokertest

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// nextDue returns a reader of one of the store's Next* methods that fails
// t on an error.
func nextDue(t *testing.T, name string, f func(context.Context) (time.Time, bool, error)) func(what string) (time.Time, bool) {
	return func(what string) (time.Time, bool) {
		t.Helper()
		at, ok, err := f(context.Background())
		if err != nil {
			t.Fatalf("%s %s: %v", name, what, err)
		}
		return at, ok
	}
}

// testNextScheduled: NextScheduled tells the earliest deadline, reminder,
// lease end or escalation step of the pending questions, follows each
// change of them (a claimed reminder, a renewed lease, an amended
// escalation, a resolution), and tells nothing once none is pending. The
// step of a question resolved since may still be told until the sweep at
// its time (DueEscalations) drops it, but never a time later than what is
// due.
func testNextScheduled(t *testing.T, s broker.Store) {
	ctx := context.Background()
	next := nextDue(t, "NextScheduled", s.NextScheduled)
	want := func(what string, at time.Time) {
		t.Helper()
		got, ok := next(what)
		if !ok {
			t.Fatalf("NextScheduled %s: nothing scheduled, want %s", what, at)
		}
		sameTime(t, "NextScheduled "+what, got, at)
	}
	if at, ok := next("of an empty store"); ok {
		t.Fatalf("NextScheduled of an empty store = %s, want nothing", at)
	}
	now := baseTime()
	a := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	want("after a create: its deadline", now.Add(30*time.Minute))

	b := NewQuestion(broker.NewID(), "a1", now)
	b.ExpiresAt = now.Add(time.Hour)
	b.Reminders = []time.Time{now.Add(20 * time.Minute), now.Add(40 * time.Minute)}
	mustCreate(t, s, b)
	want("after a create with reminders: the first reminder", now.Add(20*time.Minute))
	if ok, err := s.ClaimReminder(ctx, b.ID, 1); err != nil || !ok {
		t.Fatalf("ClaimReminder = %v, %v; want the mark made", ok, err)
	}
	want("once the first reminder was claimed: the other deadline", now.Add(30*time.Minute))

	c := NewQuestion(broker.NewID(), "a1", now)
	c.ExpiresAt = now.Add(2 * time.Hour)
	c.Lease, c.LeaseUntil = 30*time.Second, now.Add(10*time.Minute)
	mustCreate(t, s, c)
	want("after a create with a lease: its end", now.Add(10*time.Minute))
	if err := s.RenewLease(ctx, c.ID, now.Add(50*time.Minute)); err != nil {
		t.Fatalf("RenewLease: %v", err)
	}
	want("once the lease was renewed: the deadline", now.Add(30*time.Minute))

	if _, err := s.Amend(ctx, b.ID, 0, broker.Amendment{State: broker.PolicyState{EscalateAt: now.Add(5 * time.Minute)}}); err != nil {
		t.Fatalf("Amend: %v", err)
	}
	want("after an escalation step was set", now.Add(5*time.Minute))
	mustResolve(t, s, b.ID, answeredAt(now.Add(time.Minute), "Postgres"))
	if at, ok := next("once the escalated question was resolved"); !ok || at.After(now.Add(30*time.Minute)) {
		t.Fatalf("NextScheduled once the escalated question was resolved = %s (%v), want the deadline at %s or the step before it", at, ok, now.Add(30*time.Minute))
	}
	if ids, err := s.DueEscalations(ctx, now.Add(5*time.Minute), 10); err != nil || len(ids) != 0 {
		t.Fatalf("DueEscalations at the resolved question's step = %v, %v; want none", ids, err)
	}
	want("once the sweep at the resolved question's step ran: the deadline", now.Add(30*time.Minute))
	mustResolve(t, s, a.ID, answeredAt(now.Add(time.Minute), "Postgres"))
	want("once that question was resolved: the renewed lease", now.Add(50*time.Minute))
	mustResolve(t, s, c.ID, answeredAt(now.Add(time.Minute), "Postgres"))
	if at, ok := next("once every question was resolved"); ok {
		t.Fatalf("NextScheduled once every question was resolved = %s, want nothing", at)
	}
}

// testNextDelivery: NextDelivery tells when the earliest pending callback
// delivery falls due (a claimed one when its hold ends, a retry at its
// time), and nothing once every delivery is delivered or given up.
func testNextDelivery(t *testing.T, s broker.Store) {
	ctx := context.Background()
	next := nextDue(t, "NextDelivery", s.NextDelivery)
	want := func(what string, at time.Time) {
		t.Helper()
		got, ok := next(what)
		if !ok {
			t.Fatalf("NextDelivery %s: none, want %s", what, at)
		}
		sameTime(t, "NextDelivery "+what, got, at)
	}
	if at, ok := next("of an empty store"); ok {
		t.Fatalf("NextDelivery of an empty store = %s, want none", at)
	}
	now := baseTime()
	plain := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	mustResolve(t, s, plain.ID, answeredAt(now, "SQLite"))
	if at, ok := next("after a resolution without a callback"); ok {
		t.Fatalf("NextDelivery after a resolution without a callback = %s, want none", at)
	}
	first := resolvedWithCallback(t, s, broker.NewID(), now)
	second := resolvedWithCallback(t, s, broker.NewID(), now.Add(time.Second))
	want("after two resolutions with callbacks: the first", now)

	held := claimDue(t, s, now, 10, time.Minute)
	if len(held) != 1 || held[0].QuestionID != first.ID {
		t.Fatalf("claim at the first's time = %+v, want the first's delivery", held)
	}
	want("while the first is held: the second", now.Add(time.Second))
	other := claimDue(t, s, now.Add(time.Second), 10, time.Minute)
	if len(other) != 1 || other[0].QuestionID != second.ID {
		t.Fatalf("claim at the second's time = %+v, want the second's delivery", other)
	}
	want("while both are held: the first hold's end", now.Add(time.Minute))

	d := held[0]
	d.State, d.Attempts, d.UpdatedAt = broker.DeliveryDelivered, 1, now.Add(2*time.Second)
	if err := s.UpdateDelivery(ctx, d); err != nil {
		t.Fatalf("UpdateDelivery(delivered): %v", err)
	}
	want("once the first was delivered: the second hold's end", now.Add(time.Second+time.Minute))
	r := other[0]
	r.State, r.Attempts, r.LastError = broker.DeliveryPending, 1, "HTTP 503"
	r.NextAt, r.UpdatedAt = now.Add(5*time.Minute), now.Add(2*time.Second)
	if err := s.UpdateDelivery(ctx, r); err != nil {
		t.Fatalf("UpdateDelivery(retry): %v", err)
	}
	want("once the second is to be retried: the retry", now.Add(5*time.Minute))
	again := claimDue(t, s, now.Add(5*time.Minute), 10, time.Minute)
	if len(again) != 1 {
		t.Fatalf("claim of the retry = %+v, want one delivery", again)
	}
	g := again[0]
	g.State, g.Attempts, g.LastError, g.UpdatedAt = broker.DeliveryFailed, 2, "HTTP 410", now.Add(5*time.Minute)
	if err := s.UpdateDelivery(ctx, g); err != nil {
		t.Fatalf("UpdateDelivery(failed): %v", err)
	}
	if at, ok := next("once every delivery ended"); ok {
		t.Fatalf("NextDelivery once every delivery ended = %s, want none", at)
	}
}
