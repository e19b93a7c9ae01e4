package brokertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var eventTests = []storeTest{
	{"OnePerResolution", testEvents},
}

func testEvents(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := newIDs(4)
	agents := []string{"a1", "a2", "a1", "a1"}
	sessions := []string{"s1", "", "s2", "s1"}
	for i, id := range q {
		nq := NewQuestion(id, agents[i], now)
		nq.SessionID = sessions[i]
		mustCreate(t, s, nq)
	}
	statuses := []broker.Status{broker.StatusAnswered, broker.StatusDeclined, broker.StatusTimedOut}
	for i, st := range statuses {
		mustResolve(t, s, q[i], broker.Resolution{Status: st, ResolvedAt: now.Add(time.Duration(i+1) * time.Second)})
	}
	events := func(agent string, after int64, limit int) []broker.Event {
		t.Helper()
		evs, err := s.Events(ctx, agent, after, limit)
		if err != nil {
			t.Fatalf("Events(%q, %d, %d): %v", agent, after, limit, err)
		}
		return evs
	}
	evIDs := func(evs []broker.Event) []string {
		out := make([]string, len(evs))
		for i, e := range evs {
			out[i] = e.QuestionID
		}
		return out
	}
	all := events("", 0, 100)
	wantIDs(t, "Events(all)", evIDs(all), q[:3])
	for i, e := range all {
		if e.Seq <= 0 || (i > 0 && e.Seq <= all[i-1].Seq) {
			t.Fatalf("event seqs %v are not positive and strictly increasing", all)
		}
		if e.Agent != agents[i] || e.SessionID != sessions[i] || e.Status != statuses[i] {
			t.Fatalf("event %d = %+v, want agent %s session %q status %s", i, e, agents[i], sessions[i], statuses[i])
		}
		sameTime(t, "event time", e.At, now.Add(time.Duration(i+1)*time.Second))
	}
	wantIDs(t, "Events(a1)", evIDs(events("a1", 0, 100)), []string{q[0], q[2]})
	wantIDs(t, "Events(a2)", evIDs(events("a2", 0, 100)), []string{q[1]})
	wantIDs(t, "Events(nobody)", evIDs(events("nobody", 0, 100)), nil)
	wantIDs(t, "Events after the first", evIDs(events("", all[0].Seq, 100)), q[1:3])
	wantIDs(t, "Events(a1) after the first", evIDs(events("a1", all[0].Seq, 100)), []string{q[2]})
	wantIDs(t, "Events after the last", evIDs(events("", all[2].Seq, 100)), nil)
	wantIDs(t, "Events limit 2", evIDs(events("", 0, 2)), q[:2])

	mustResolve(t, s, q[3], broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(time.Minute)})
	next := events("", all[2].Seq, 100)
	wantIDs(t, "Events after a later resolution", evIDs(next), []string{q[3]})
	if next[0].Seq <= all[2].Seq {
		t.Fatalf("later event seq %d is not above %d", next[0].Seq, all[2].Seq)
	}
}

var outboxTests = []storeTest{
	{"EnqueuedOnResolve", testDeliveryEnqueued},
	{"ClaimHolds", testDeliveryClaimHold},
	{"UpdateDelivery", testUpdateDelivery},
	{"ClaimedOnceUnderConcurrency", testDeliveryClaimRace},
	{"UpdateFencedByClaim", testUpdateFencedByClaim},
	{"NextDelivery", testNextDelivery},
}

// resolvedWithCallback creates and resolves a question with a callback URL.
func resolvedWithCallback(t *testing.T, s broker.Store, id string, at time.Time) *broker.Question {
	t.Helper()
	q := NewQuestion(id, "a1", at.Add(-time.Minute))
	q.CallbackURL = "https://agent.example/cb/" + id
	mustCreate(t, s, q)
	return mustResolve(t, s, id, answeredAt(at, "Postgres"))
}

func deliveriesOf(t *testing.T, s broker.Store, id string) []broker.Delivery {
	t.Helper()
	ds, err := s.Deliveries(context.Background(), id)
	if err != nil {
		t.Fatalf("Deliveries(%s): %v", id, err)
	}
	return ds
}

func claimDue(t *testing.T, s broker.Store, now time.Time, limit int, hold time.Duration) []broker.Delivery {
	t.Helper()
	ds, err := s.ClaimDeliveries(context.Background(), now, limit, hold)
	if err != nil {
		t.Fatalf("ClaimDeliveries: %v", err)
	}
	return ds
}

func testDeliveryEnqueued(t *testing.T, s broker.Store) {
	now := baseTime()
	q := resolvedWithCallback(t, s, broker.NewID(), now)
	plain := NewQuestion(broker.NewID(), "a1", now)
	mustCreate(t, s, plain)
	mustResolve(t, s, plain.ID, answeredAt(now, "SQLite"))

	ds := deliveriesOf(t, s, q.ID)
	if len(ds) != 1 {
		t.Fatalf("Deliveries after Resolve = %+v, want exactly one", ds)
	}
	d := ds[0]
	if d.ID == "" || d.QuestionID != q.ID || d.Agent != "a1" || d.URL != q.CallbackURL || d.State != broker.DeliveryPending || d.Attempts != 0 || d.LastError != "" {
		t.Fatalf("delivery = %+v, want a pending delivery of %s to %s with no attempts", d, q.ID, q.CallbackURL)
	}
	sameTime(t, "delivery NextAt", d.NextAt, now)
	// The deliverer measures its retry window from CreatedAt.
	sameTime(t, "delivery CreatedAt", d.CreatedAt, now)
	if ds := deliveriesOf(t, s, plain.ID); len(ds) != 0 {
		t.Fatalf("Deliveries of a question without callback URL = %+v, want none", ds)
	}
	if ds := deliveriesOf(t, s, "zzzzzz"); len(ds) != 0 {
		t.Fatalf("Deliveries(unknown) = %+v, want none", ds)
	}
}

func testDeliveryClaimHold(t *testing.T, s broker.Store) {
	now := baseTime()
	q := newIDs(3)
	for i, id := range q {
		resolvedWithCallback(t, s, id, now.Add(time.Duration(i)*time.Millisecond))
	}
	if got := claimDue(t, s, now.Add(-time.Second), 10, time.Minute); len(got) != 0 {
		t.Fatalf("ClaimDeliveries before they are due = %+v, want none", got)
	}
	first := claimDue(t, s, now.Add(time.Second), 2, time.Minute)
	if len(first) != 2 {
		t.Fatalf("ClaimDeliveries(limit 2) gave %d, want 2", len(first))
	}
	rest := claimDue(t, s, now.Add(time.Second), 10, time.Minute)
	if len(rest) != 1 {
		t.Fatalf("second ClaimDeliveries gave %d, want the 1 not yet claimed", len(rest))
	}
	var got []string
	for _, d := range append(first, rest...) {
		got = append(got, d.QuestionID)
	}
	wantSet(t, "claimed deliveries", got, q)
	if d := claimDue(t, s, now.Add(30*time.Second), 10, time.Minute); len(d) != 0 {
		t.Fatalf("ClaimDeliveries while held = %+v, want none", d)
	}
	again := claimDue(t, s, now.Add(time.Second+time.Minute), 10, time.Minute)
	if len(again) != 3 {
		t.Fatalf("ClaimDeliveries after the hold ended gave %d, want all 3 again", len(again))
	}
}

func testUpdateDelivery(t *testing.T, s broker.Store) {
	now := baseTime()
	q := resolvedWithCallback(t, s, broker.NewID(), now)
	ds := claimDue(t, s, now, 10, time.Minute)
	if len(ds) != 1 {
		t.Fatalf("ClaimDeliveries = %+v, want one", ds)
	}
	d := ds[0]
	d.State, d.Attempts, d.LastError = broker.DeliveryPending, 1, "HTTP 503: busy ünavailable"
	d.NextAt, d.UpdatedAt = now.Add(5*time.Minute), now.Add(time.Second)
	if err := s.UpdateDelivery(context.Background(), d); err != nil {
		t.Fatalf("UpdateDelivery: %v", err)
	}
	got := deliveriesOf(t, s, q.ID)
	if len(got) != 1 || got[0].ID != d.ID || got[0].State != d.State || got[0].Attempts != 1 || got[0].LastError != d.LastError {
		t.Fatalf("Deliveries after UpdateDelivery = %+v, want %+v", got, d)
	}
	sameTime(t, "NextAt after UpdateDelivery", got[0].NextAt, d.NextAt)
	if c := claimDue(t, s, now.Add(4*time.Minute), 10, time.Minute); len(c) != 0 {
		t.Fatalf("ClaimDeliveries before the retry time = %+v, want none", c)
	}
	c := claimDue(t, s, now.Add(5*time.Minute), 10, time.Minute)
	if len(c) != 1 || c[0].Attempts != 1 {
		t.Fatalf("ClaimDeliveries at the retry time = %+v, want the delivery with 1 attempt", c)
	}

	for _, state := range []string{broker.DeliveryDelivered, broker.DeliveryFailed} {
		t.Run(state, func(t *testing.T) {
			d := c[0]
			d.Claim = time.Time{} // both outcomes for one claim: record without the fence
			d.State, d.Attempts, d.LastError, d.UpdatedAt = state, 2, "", now.Add(6*time.Minute)
			if err := s.UpdateDelivery(context.Background(), d); err != nil {
				t.Fatalf("UpdateDelivery: %v", err)
			}
			got := deliveriesOf(t, s, q.ID)
			if len(got) != 1 || got[0].State != state || got[0].Attempts != 2 {
				t.Fatalf("Deliveries = %+v, want one %s after 2 attempts", got, state)
			}
			if c := claimDue(t, s, now.Add(365*24*time.Hour), 10, time.Minute); len(c) != 0 {
				t.Fatalf("ClaimDeliveries of a %s delivery = %+v, want none ever", state, c)
			}
		})
	}
}

func testDeliveryClaimRace(t *testing.T, s broker.Store) {
	now := baseTime()
	q := newIDs(10)
	for _, id := range q {
		resolvedWithCallback(t, s, id, now)
	}
	var mu sync.Mutex
	var claimed []string
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				ds, err := s.ClaimDeliveries(context.Background(), now, 3, time.Hour)
				if err != nil {
					t.Errorf("ClaimDeliveries: %v", err)
					return
				}
				if len(ds) == 0 {
					return
				}
				mu.Lock()
				for _, d := range ds {
					claimed = append(claimed, d.QuestionID)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wantSet(t, "deliveries claimed by 4 concurrent claimers", claimed, q)
}

// testUpdateFencedByClaim: an outcome is recorded only under the claim
// it was attempted under. Once that claim's hold has run out and a new
// claim took the delivery, the late outcome is refused with ErrConflict
// and changes nothing, so it cannot undo what the newer claim records;
// nor can it reopen a delivery that is already delivered.
func testUpdateFencedByClaim(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := resolvedWithCallback(t, s, broker.NewID(), now)
	first := claimDue(t, s, now, 10, time.Minute)
	if len(first) != 1 || first[0].Claim.IsZero() {
		t.Fatalf("ClaimDeliveries = %+v, want one delivery carrying its claim", first)
	}
	sameTime(t, "Claim of a claimed delivery", first[0].Claim, now.Add(time.Minute))
	second := claimDue(t, s, now.Add(2*time.Minute), 10, time.Minute)
	if len(second) != 1 {
		t.Fatalf("ClaimDeliveries after the hold ran out = %+v, want the delivery again", second)
	}

	late := first[0]
	late.State, late.Attempts, late.LastError = broker.DeliveryPending, 1, "timeout"
	late.NextAt, late.UpdatedAt = now.Add(90*time.Second), now.Add(90*time.Second)
	if err := s.UpdateDelivery(ctx, late); !errors.Is(err, broker.ErrConflict) {
		t.Fatalf("UpdateDelivery under a claim that ran out = %v, want ErrConflict", err)
	}
	got := deliveriesOf(t, s, q.ID)
	if len(got) != 1 || got[0].State != broker.DeliveryPending || got[0].Attempts != 0 || got[0].LastError != "" {
		t.Fatalf("delivery after a refused late outcome = %+v, want it untouched", got)
	}
	sameTime(t, "NextAt after a refused late outcome", got[0].NextAt, now.Add(3*time.Minute))
	if c := claimDue(t, s, now.Add(150*time.Second), 10, time.Minute); len(c) != 0 {
		t.Fatalf("ClaimDeliveries while the second claim holds = %+v, want none", c)
	}

	cur := second[0]
	cur.State, cur.Attempts, cur.UpdatedAt = broker.DeliveryDelivered, 1, now.Add(2*time.Minute)
	if err := s.UpdateDelivery(ctx, cur); err != nil {
		t.Fatalf("UpdateDelivery under the current claim: %v", err)
	}
	late.State = broker.DeliveryFailed
	if err := s.UpdateDelivery(ctx, late); !errors.Is(err, broker.ErrConflict) {
		t.Fatalf("UpdateDelivery of a delivered delivery under an old claim = %v, want ErrConflict", err)
	}
	if err := s.UpdateDelivery(ctx, cur); !errors.Is(err, broker.ErrConflict) {
		t.Fatalf("UpdateDelivery twice under one claim = %v, want ErrConflict (the first finished it)", err)
	}
	if got := deliveriesOf(t, s, q.ID); len(got) != 1 || got[0].State != broker.DeliveryDelivered {
		t.Fatalf("delivery = %+v, want delivered", got)
	}
	missing := cur
	missing.ID, missing.QuestionID = "d_zzzzzz", "zzzzzz"
	if err := s.UpdateDelivery(ctx, missing); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("UpdateDelivery of an unknown delivery = %v, want ErrNotFound", err)
	}
}
