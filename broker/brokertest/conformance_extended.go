package brokertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var extendedTests = []storeTest{
	{"SnoozeLogsExtendedOnce", testExtendedOnce},
	{"ExtendedWithoutSnooze", testExtendedInvalid},
	{"ExtendedOnTheFeed", testExtendedWatch},
	{"SnoozeRacesTimeoutEvents", testExtendedRacesTimeout},
}

// snoozeAmendment is the amendment of snooze number len(prev)+1 of q by
// user at at, moving the deadline to q.ExpiresAt+by.
func snoozeAmendment(q *broker.Question, user string, at time.Time, by time.Duration) broker.Amendment {
	st := q.State
	next := q.ExpiresAt.Add(by)
	st.Snoozes = append(append([]broker.Snooze(nil), st.Snoozes...), broker.Snooze{By: broker.Responder{Channel: "slack", User: user}, At: at, ExpiresAt: next})
	return broker.Amendment{State: st, ExpiresAt: next, Extended: true,
		Audit: []broker.AuditEntry{{At: at, Kind: broker.AuditSnoozed, ExpiresAt: &next}}}
}

// eventsOf returns the events of question id in s's log, by type.
func eventsOf(t *testing.T, s broker.Store, agent, id string) map[string][]broker.Event {
	t.Helper()
	evs, err := s.Events(context.Background(), agent, 0, 1000)
	if err != nil {
		t.Fatalf("Events: %v", err)
	}
	out := map[string][]broker.Event{}
	for _, ev := range evs {
		if ev.QuestionID == id {
			out[ev.Type] = append(out[ev.Type], ev)
		}
	}
	return out
}

// testExtendedOnce snoozes a question twice and votes once: the log holds
// one extended event per snooze, with the new deadline, who snoozed and
// the count, after the events before it; the vote logs nothing.
func testExtendedOnce(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	other := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	mustResolve(t, s, other.ID, answeredAt(now, "Postgres"))
	got, err := s.Amend(ctx, q.ID, 0, snoozeAmendment(q, "U1", now.Add(time.Second), 30*time.Minute))
	if err != nil {
		t.Fatalf("first snooze: %v", err)
	}
	if got, err = s.Amend(ctx, q.ID, 1, broker.Amendment{State: got.State}); err != nil {
		t.Fatalf("a change that is not a snooze: %v", err)
	}
	if _, err = s.Amend(ctx, q.ID, 2, snoozeAmendment(got, "U2", now.Add(2*time.Second), 10*time.Minute)); err != nil {
		t.Fatalf("second snooze: %v", err)
	}
	evs := eventsOf(t, s, "a1", q.ID)
	ext := evs[broker.EventExtended]
	if len(ext) != 2 || len(evs) != 1 {
		t.Fatalf("events of the question = %+v, want exactly 2 extended events", evs)
	}
	for k, want := range []struct {
		user    string
		expires time.Time
	}{{"U1", q.ExpiresAt.Add(30 * time.Minute)}, {"U2", q.ExpiresAt.Add(40 * time.Minute)}} {
		ev := ext[k]
		if ev.Status != broker.StatusPending || ev.Agent != "a1" || ev.Extension == nil || ev.Extension.Snoozes != k+1 || ev.Extension.SnoozedBy.User != want.user {
			t.Fatalf("extended event %d = %+v (extension %+v), want pending, agent a1, snooze %d by %s", k+1, ev, ev.Extension, k+1, want.user)
		}
		sameTime(t, "extended event's expires_at", ev.Extension.ExpiresAt, want.expires)
		sameTime(t, "extended event's time", ev.At, now.Add(time.Duration(k+1)*time.Second))
	}
	all := eventsOf(t, s, "a1", other.ID)
	if len(all[broker.EventResolved]) != 1 || all[broker.EventResolved][0].Seq >= ext[0].Seq || ext[0].Seq >= ext[1].Seq {
		t.Fatalf("resolution %+v, extensions %+v: want the resolution typed resolved and sequence numbers growing", all, ext)
	}
	if more := eventsOf(t, s, "someone-else", q.ID); len(more) != 0 {
		t.Fatalf("another agent's log holds %+v", more)
	}
}

// testExtendedInvalid gives an Extended amendment that carries no snooze:
// a clear error, and nothing changes.
func testExtendedInvalid(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	_, err := s.Amend(ctx, q.ID, 0, broker.Amendment{ExpiresAt: q.ExpiresAt.Add(time.Hour), Extended: true})
	wantErr(t, "an extended amendment without a snooze", err, broker.ErrInvalid)
	g := mustGet(t, s, q.ID)
	if g.State.Rev != 0 {
		t.Fatalf("revision = %d after a refused amendment, want 0", g.State.Rev)
	}
	sameTime(t, "expires_at after a refused amendment", g.ExpiresAt, q.ExpiresAt)
	if evs := eventsOf(t, s, "a1", q.ID); len(evs) != 0 {
		t.Fatalf("events after a refused amendment: %+v", evs)
	}
}

// testExtendedWatch checks that a snooze is on the feed, so that waiting
// agents re-read the question.
func testExtendedWatch(t *testing.T, s broker.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	now := baseTime()
	q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
	ch := s.Watch(ctx)
	if _, err := s.Amend(ctx, q.ID, 0, snoozeAmendment(q, "U1", now, time.Hour)); err != nil {
		t.Fatalf("snooze: %v", err)
	}
	awaitID(t, ch, q.ID, "a1")
}

// testExtendedRacesTimeout races a snooze against a timeout built on the
// same revision: either the deadline moved and the log holds its extended
// event and no resolution, or the question timed out with its resolution
// event and no extended one; never both.
func testExtendedRacesTimeout(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	for range 10 {
		q := mustCreate(t, s, NewQuestion(broker.NewID(), "a1", now))
		rev := q.State.Rev
		var wg sync.WaitGroup
		var snoozeErr, timeoutErr error
		wg.Go(func() { _, snoozeErr = s.Amend(ctx, q.ID, rev, snoozeAmendment(q, "U1", now, time.Hour)) })
		wg.Go(func() {
			_, timeoutErr = s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: q.ExpiresAt, IfRev: &rev})
		})
		wg.Wait()
		evs := eventsOf(t, s, "a1", q.ID)
		ext, res := len(evs[broker.EventExtended]), len(evs[broker.EventResolved])
		var closed *broker.ClosedError
		switch {
		case snoozeErr == nil && errors.Is(timeoutErr, broker.ErrConflict):
			if ext != 1 || res != 0 {
				t.Fatalf("snooze won, but the log holds %d extended and %d resolved events; want 1 and 0", ext, res)
			}
		case timeoutErr == nil && errors.As(snoozeErr, &closed):
			if ext != 0 || res != 1 {
				t.Fatalf("timeout won, but the log holds %d extended and %d resolved events; want 0 and 1", ext, res)
			}
		default:
			t.Fatalf("snooze: %v, timeout: %v; want exactly one to apply", snoozeErr, timeoutErr)
		}
	}
}
