package brokertest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var scheduleTests = []storeTest{
	{"Due", testDue},
	{"Reminders", testReminders},
	{"ReminderClaimedOnce", testReminderRace},
	{"Leases", testLeases},
	{"NextScheduled", testNextScheduled},
}

func testDue(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := newIDs(5)
	expires := []time.Duration{-time.Minute, -2 * time.Minute, 0, time.Minute, -3 * time.Minute}
	for i, id := range q {
		nq := NewQuestion(id, "a1", now.Add(-time.Hour))
		nq.ExpiresAt = now.Add(expires[i])
		mustCreate(t, s, nq)
	}
	mustResolve(t, s, q[4], answeredAt(now, "Postgres"))

	due := func(at time.Time, limit int) []string {
		t.Helper()
		got, err := s.Due(ctx, at, limit)
		if err != nil {
			t.Fatalf("Due: %v", err)
		}
		return got
	}
	wantIDs(t, "Due(now) earliest first, pending only, deadline at now included", due(now, 10), []string{q[1], q[0], q[2]})
	wantIDs(t, "Due(now, limit 2)", due(now, 2), []string{q[1], q[0]})
	wantIDs(t, "Due(an hour ago)", due(now.Add(-time.Hour), 10), nil)
	mustResolve(t, s, q[1], broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: now})
	wantIDs(t, "Due(now) after one timed out", due(now, 10), []string{q[0], q[2]})
	wantIDs(t, "Due(now+1m)", due(now.Add(time.Minute), 10), []string{q[0], q[2], q[3]})
}

func testReminders(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := newIDs(5)
	reminders := [][]time.Duration{
		{-time.Minute, 10 * time.Minute},
		{5 * time.Minute},
		nil,
		{-2 * time.Minute},
		{-30 * time.Second, -10 * time.Second},
	}
	for i, id := range q {
		nq := NewQuestion(id, "a1", now.Add(-time.Hour))
		nq.ExpiresAt = now.Add(time.Hour)
		for _, d := range reminders[i] {
			nq.Reminders = append(nq.Reminders, now.Add(d))
		}
		mustCreate(t, s, nq)
	}
	mustResolve(t, s, q[3], answeredAt(now, "Postgres"))

	due := func(at time.Time, limit int) []string {
		t.Helper()
		got, err := s.DueReminders(ctx, at, limit)
		if err != nil {
			t.Fatalf("DueReminders: %v", err)
		}
		return got
	}
	claimRem := func(id string, n int, want bool) {
		t.Helper()
		got, err := s.ClaimReminder(ctx, id, n)
		if err != nil {
			t.Fatalf("ClaimReminder(%s, %d): %v", id, n, err)
		}
		if got != want {
			t.Fatalf("ClaimReminder(%s, %d) = %v, want %v", id, n, got, want)
		}
	}
	sent := func(id string, want int) {
		t.Helper()
		if got := mustGet(t, s, id).RemindersSent; got != want {
			t.Fatalf("question %s: RemindersSent = %d, want %d", id, got, want)
		}
	}

	wantSet(t, "DueReminders(now)", due(now, 10), []string{q[0], q[4]})
	if got := due(now, 1); len(got) != 1 {
		t.Fatalf("DueReminders(now, limit 1) = %v, want one id", got)
	}
	claimRem(q[0], 1, true)
	sent(q[0], 1)
	claimRem(q[0], 1, false)
	sent(q[0], 1)
	wantSet(t, "DueReminders(now) after the first reminder of q0", due(now, 10), []string{q[4]})
	wantSet(t, "DueReminders(now+10m)", due(now.Add(10*time.Minute), 10), []string{q[0], q[1], q[4]})

	// Marking reminder 2 with none marked skips the first: it is stale.
	claimRem(q[4], 2, true)
	sent(q[4], 2)
	claimRem(q[4], 1, false)
	claimRem(q[4], 2, false)
	sent(q[4], 2)
	claimRem(q[0], 2, true)
	claimRem(q[1], 1, true)
	wantSet(t, "DueReminders after every reminder was sent", due(now.Add(24*time.Hour), 10), nil)

	// A closed question is never reminded.
	claimRem(q[3], 1, false)
	sent(q[3], 0)
}

func testReminderRace(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	nq := NewQuestion(broker.NewID(), "a1", now)
	nq.Reminders = []time.Time{now.Add(-2 * time.Second), now.Add(-time.Second)}
	mustCreate(t, s, nq)
	for n := 1; n <= 2; n++ {
		var wins atomic.Int32
		var wg sync.WaitGroup
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.ClaimReminder(ctx, nq.ID, n)
				if err != nil {
					t.Errorf("ClaimReminder: %v", err)
				}
				if ok {
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		if w := wins.Load(); w != 1 {
			t.Fatalf("20 concurrent ClaimReminder(%d): %d succeeded, want exactly 1", n, w)
		}
	}
	if got := mustGet(t, s, nq.ID).RemindersSent; got != 2 {
		t.Fatalf("RemindersSent = %d, want 2", got)
	}
	got, err := s.DueReminders(ctx, now, 10)
	if err != nil {
		t.Fatalf("DueReminders: %v", err)
	}
	wantSet(t, "DueReminders after both were claimed", got, nil)
}

func testLeases(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := newIDs(5)
	until := []time.Duration{-time.Second, 0, time.Minute, -1, -5 * time.Second}
	for i, id := range q {
		nq := NewQuestion(id, "a1", now.Add(-time.Minute))
		if until[i] != -1 {
			nq.Lease = 30 * time.Second
			nq.LeaseUntil = now.Add(until[i])
		}
		mustCreate(t, s, nq)
	}
	mustResolve(t, s, q[4], answeredAt(now, "Postgres"))

	lapsed := func(at time.Time, limit int) []string {
		t.Helper()
		got, err := s.LapsedLeases(ctx, at, limit)
		if err != nil {
			t.Fatalf("LapsedLeases: %v", err)
		}
		return got
	}
	wantSet(t, "LapsedLeases(now)", lapsed(now, 10), []string{q[0], q[1]})
	if got := lapsed(now, 1); len(got) != 1 {
		t.Fatalf("LapsedLeases(now, limit 1) = %v, want one id", got)
	}
	if err := s.RenewLease(ctx, q[0], now.Add(30*time.Second)); err != nil {
		t.Fatalf("RenewLease: %v", err)
	}
	sameTime(t, "LeaseUntil after RenewLease", mustGet(t, s, q[0]).LeaseUntil, now.Add(30*time.Second))
	wantSet(t, "LapsedLeases(now) after renewal", lapsed(now, 10), []string{q[1]})
	wantSet(t, "LapsedLeases(now+1h): questions without a lease never lapse", lapsed(now.Add(time.Hour), 10), []string{q[0], q[1], q[2]})
	mustResolve(t, s, q[1], broker.Resolution{Status: broker.StatusCancelled, Reason: "lease lapsed", ResolvedAt: now})
	wantSet(t, "LapsedLeases(now) after cancelling", lapsed(now, 10), nil)

	wantErr(t, "RenewLease(unknown)", s.RenewLease(ctx, "zzzzzz", now), broker.ErrNotFound)
}
