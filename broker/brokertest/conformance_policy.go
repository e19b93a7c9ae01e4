package brokertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var policyTests = []storeTest{
	{"AmendRoundTrip", testAmendRoundTrip},
	{"AmendStaleRevision", testAmendStale},
	{"AmendClosed", testAmendClosed},
	{"AmendMovesDeadline", testAmendMovesDeadline},
	{"ResolveIfRev", testResolveIfRev},
	{"ConcurrentAmends", testAmendRace},
	{"SnoozeRacesTimeout", testSnoozeRacesTimeout},
	{"AuditUnknown", testAuditUnknown},
}

func vote(user, choice string, at time.Time) broker.Vote {
	return broker.Vote{By: broker.Responder{Channel: "slack", User: user}, Choice: choice, At: at}
}

func testAmendRoundTrip(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	st := broker.PolicyState{Votes: []broker.Vote{vote("U1", "Postgres", now)}}
	entry := broker.AuditEntry{At: now, Kind: broker.AuditVote, By: &broker.Responder{Channel: "slack", User: "U1"}, Choice: "Postgres"}
	got, err := s.Amend(ctx, q.ID, 0, broker.Amendment{State: st, Audit: []broker.AuditEntry{entry}})
	if err != nil {
		t.Fatalf("Amend: %v", err)
	}
	for what, g := range map[string]*broker.Question{"Amend": got, "Get": mustGet(t, s, q.ID)} {
		if g.State.Rev != 1 || len(g.State.Votes) != 1 || g.State.Votes[0].By.User != "U1" || g.State.Votes[0].Choice != "Postgres" {
			t.Fatalf("%s: state = %+v, want revision 1 with U1's vote for Postgres", what, g.State)
		}
		sameTime(t, what+": expires_at", g.ExpiresAt, q.ExpiresAt)
	}
	if err := s.AddAudit(ctx, q.ID, broker.AuditEntry{At: now.Add(time.Second), Kind: broker.AuditRefused, Detail: "no"}); err != nil {
		t.Fatalf("AddAudit: %v", err)
	}
	log, err := s.Audit(ctx, q.ID)
	if err != nil {
		t.Fatalf("Audit: %v", err)
	}
	if len(log) != 3 || log[0].Kind != broker.AuditAsked || log[1].Kind != broker.AuditVote || log[1].By == nil || log[1].By.User != "U1" || log[2].Kind != broker.AuditRefused {
		t.Fatalf("Audit = %+v, want the ask, the vote, then the refusal", log)
	}
	if ok, bad, why := broker.VerifyAudit(log); !ok {
		t.Fatalf("VerifyAudit: entry %d: %s", bad, why)
	}
	sameTime(t, "audit entry time", log[1].At, now)
}

func testAmendStale(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	if _, err := s.Amend(ctx, q.ID, 0, broker.Amendment{State: broker.PolicyState{Votes: []broker.Vote{vote("U1", "Postgres", now)}}}); err != nil {
		t.Fatalf("Amend: %v", err)
	}
	_, err := s.Amend(ctx, q.ID, 0, broker.Amendment{
		State: broker.PolicyState{Votes: []broker.Vote{vote("U2", "SQLite", now)}},
		Audit: []broker.AuditEntry{{At: now, Kind: broker.AuditVote}},
	})
	wantErr(t, "Amend at an old revision", err, broker.ErrConflict)
	g := mustGet(t, s, q.ID)
	if g.State.Rev != 1 || len(g.State.Votes) != 1 || g.State.Votes[0].By.User != "U1" {
		t.Fatalf("state after refused Amend = %+v, want U1's vote alone at revision 1", g.State)
	}
	if log, err := s.Audit(ctx, q.ID); err != nil || len(log) != 1 || log[0].Kind != broker.AuditAsked {
		t.Fatalf("Audit after refused Amend = %v, %v; want the ask alone", log, err)
	}
}

func testAmendClosed(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	mustResolve(t, s, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(time.Second)})
	_, err := s.Amend(ctx, q.ID, 0, broker.Amendment{State: broker.PolicyState{Votes: []broker.Vote{vote("U1", "Postgres", now)}}})
	var closed *broker.ClosedError
	if !errors.As(err, &closed) || closed.Question.Status != broker.StatusCancelled {
		t.Fatalf("Amend of a cancelled question: %v, want a *ClosedError holding it", err)
	}
	_, err = s.Amend(ctx, broker.NewID(), 0, broker.Amendment{})
	wantErr(t, "Amend of an unknown question", err, broker.ErrNotFound)
}

func testAmendMovesDeadline(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := NewQuestion(broker.NewID(), "a1", now)
	q.Reminders = []time.Time{q.CreatedAt.Add(15 * time.Minute), q.CreatedAt.Add(27 * time.Minute)}
	mustCreate(t, s, q)
	later := q.ExpiresAt.Add(30 * time.Minute)
	rem := []time.Time{q.Reminders[0].Add(30 * time.Minute), q.Reminders[1].Add(30 * time.Minute)}
	got, err := s.Amend(ctx, q.ID, 0, broker.Amendment{ExpiresAt: later, Reminders: rem})
	if err != nil {
		t.Fatalf("Amend: %v", err)
	}
	g := mustGet(t, s, q.ID)
	sameTime(t, "Amend: expires_at", got.ExpiresAt, later)
	sameTime(t, "Get: expires_at", g.ExpiresAt, later)
	sameTime(t, "Get: next reminder", g.NextReminder(), rem[0])
	if ids, err := s.Due(ctx, q.ExpiresAt, 10); err != nil || len(ids) != 0 {
		t.Fatalf("Due at the old deadline = %v, %v; want none", ids, err)
	}
	if ids, err := s.Due(ctx, later, 10); err != nil || len(ids) != 1 || ids[0] != q.ID {
		t.Fatalf("Due at the new deadline = %v, %v; want [%s]", ids, err, q.ID)
	}
	if ids, err := s.DueReminders(ctx, q.Reminders[0], 10); err != nil || len(ids) != 0 {
		t.Fatalf("DueReminders at the old first reminder = %v, %v; want none", ids, err)
	}
	if ids, err := s.DueReminders(ctx, rem[0], 10); err != nil || len(ids) != 1 {
		t.Fatalf("DueReminders at the new first reminder = %v, %v; want [%s]", ids, err, q.ID)
	}
}

func testResolveIfRev(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	if _, err := s.Amend(ctx, q.ID, 0, broker.Amendment{State: broker.PolicyState{Votes: []broker.Vote{vote("U1", "Postgres", now)}}}); err != nil {
		t.Fatalf("Amend: %v", err)
	}
	old := int64(0)
	_, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusTimedOut, ResolvedAt: now.Add(time.Hour), IfRev: &old})
	wantErr(t, "Resolve built on revision 0 at revision 1", err, broker.ErrConflict)
	if g := mustGet(t, s, q.ID); g.Status != broker.StatusPending {
		t.Fatalf("status after refused Resolve = %s, want pending", g.Status)
	}
	cur := int64(1)
	done := mustResolve(t, s, q.ID, broker.Resolution{Status: broker.StatusTimedOut, ResolvedAt: now.Add(time.Hour), IfRev: &cur})
	if done.State.Rev != 1 || len(done.State.Votes) != 1 {
		t.Fatalf("resolved state = %+v, want the vote kept", done.State)
	}
}

// testAmendRace makes many amendments at one revision at once: exactly
// one lands, the others get ErrConflict.
func testAmendRace(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := broker.PolicyState{Votes: []broker.Vote{vote(string(rune('A'+i)), "Postgres", now)}}
			_, errs[i] = s.Amend(ctx, q.ID, 0, broker.Amendment{State: st, Audit: []broker.AuditEntry{{At: now, Kind: broker.AuditVote}}})
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, broker.ErrConflict):
			t.Fatalf("Amend: %v, want success or ErrConflict", err)
		}
	}
	g := mustGet(t, s, q.ID)
	log, err := s.Audit(ctx, q.ID)
	if won != 1 || g.State.Rev != 1 || len(g.State.Votes) != 1 || err != nil || len(log) != 2 || log[1].Kind != broker.AuditVote {
		t.Fatalf("%d Amends won, state %+v, audit %v (%v); want exactly one vote after the ask", won, g.State, log, err)
	}
}

// testSnoozeRacesTimeout races a snooze (an Amend moving the deadline)
// against a timeout built on the same revision: exactly one applies.
func testSnoozeRacesTimeout(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	for range 10 {
		q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
		rev := q.State.Rev
		var wg sync.WaitGroup
		var snoozeErr, timeoutErr error
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, snoozeErr = s.Amend(ctx, q.ID, rev, broker.Amendment{ExpiresAt: q.ExpiresAt.Add(time.Hour)})
		}()
		go func() {
			defer wg.Done()
			_, timeoutErr = s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: q.ExpiresAt, IfRev: &rev})
		}()
		wg.Wait()
		g := mustGet(t, s, q.ID)
		switch {
		case snoozeErr == nil && timeoutErr != nil:
			if !errors.Is(timeoutErr, broker.ErrConflict) || g.Status != broker.StatusPending || !g.ExpiresAt.Equal(q.ExpiresAt.Add(time.Hour)) {
				t.Fatalf("snooze won: timeout error %v, question %s expiring %v", timeoutErr, g.Status, g.ExpiresAt)
			}
		case timeoutErr == nil && snoozeErr != nil:
			var closed *broker.ClosedError
			if !errors.As(snoozeErr, &closed) || g.Status != broker.StatusTimedOut {
				t.Fatalf("timeout won: snooze error %v, question %s", snoozeErr, g.Status)
			}
		default:
			t.Fatalf("snooze: %v, timeout: %v; want exactly one to apply", snoozeErr, timeoutErr)
		}
	}
}

func testAuditUnknown(t *testing.T, s broker.Store) {
	ctx := context.Background()
	id := broker.NewID()
	_, err := s.Audit(ctx, id)
	wantErr(t, "Audit of an unknown question", err, broker.ErrNotFound)
	err = s.AddAudit(ctx, id, broker.AuditEntry{At: baseTime(), Kind: broker.AuditRefused})
	wantErr(t, "AddAudit to an unknown question", err, broker.ErrNotFound)
}
