package broker_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/cli"
)

const dbPrompt = "Which database should the service use?"

// A question answered here before its agent came back for it is served
// from memory, to its agent only, for a while after the answer, and from
// the store afterwards; it is never served after a purge could have
// removed it.
func TestQuestionResolvedHereIsServedWithoutReadingIt(t *testing.T) {
	clock := brokertest.NewClock(time.Now().UTC().Truncate(time.Millisecond))
	b, st := newTextEnvAt(t, func(st *readCounter) broker.Store { return st }, clock.Now)
	ctx := context.Background()

	q, _, err := b.Ask(ctx, "agent", dbQuestion())
	if err != nil {
		t.Fatal(err)
	}
	r := b.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + q.ID + " 2"})
	if !r.OK {
		t.Fatalf("answer refused: %s", r.Text)
	}
	stored, err := st.Store.Get(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	check := func(how string, got *broker.Question, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		if got.Status != broker.StatusAnswered || got.AnsweredBy == nil || got.AnsweredBy.User != "ana" ||
			!got.ResolvedAt.Equal(stored.ResolvedAt) || !slices.Equal(got.Answers[dbPrompt].Selected, stored.Answers[dbPrompt].Selected) || !slices.Equal(stored.Answers[dbPrompt].Selected, []string{"SQLite"}) {
			t.Fatalf("%s returned %s answered by %+v at %v, answers %+v; the store holds %s by %+v at %v, answers %+v",
				how, got.Status, got.AnsweredBy, got.ResolvedAt, got.Answers, stored.Status, stored.AnsweredBy, stored.ResolvedAt, stored.Answers)
		}
	}

	// The long-poll that arrives after the answer, and a plain read.
	before := st.gets.Load()
	w, err := b.Wait(ctx, "agent", q.ID)
	check("Wait", w, err)
	g, err := b.Get(ctx, "agent", q.ID)
	check("Get", g, err)
	if n := st.gets.Load() - before; n != 0 {
		t.Fatalf("the question was read from the store %d times, want 0: it was resolved here", n)
	}

	// Another agent still learns nothing of it.
	if _, err := b.Wait(ctx, "other", q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("another agent's Wait: %v, want not found", err)
	}
	if _, err := b.Get(ctx, "other", q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("another agent's Get: %v, want not found", err)
	}

	// Half a minimum retention after the answer, the store is read again.
	clock.Add(broker.MinRetention / 2)
	before = st.gets.Load()
	w, err = b.Wait(ctx, "agent", q.ID)
	check("Wait later", w, err)
	if n := st.gets.Load() - before; n != 1 {
		t.Fatalf("a wait %s after the answer read the store %d times, want 1", broker.MinRetention/2, n)
	}

	// The earliest purge that may remove the question: it is gone.
	clock.Add(broker.MinRetention / 2)
	if n, err := st.Store.Purge(ctx, clock.Now().Add(-broker.MinRetention).Add(time.Millisecond)); err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want 1", n, err)
	}
	if _, err := b.Wait(ctx, "agent", q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("Wait after the purge: %v, want not found", err)
	}
	if _, err := b.Get(ctx, "agent", q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("Get after the purge: %v, want not found", err)
	}
}
