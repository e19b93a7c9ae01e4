package broker_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/store/sqlite"
)

// twoInstances returns two brokers on one SQLite file, as two instances
// of the bridge share a store, neither following the store's feed: the
// first asks, and what the second does reaches the first only through
// the store, as a change made elsewhere does before its hint arrives.
func twoInstances(t *testing.T) (here, elsewhere *broker.Broker) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	mk := func() *broker.Broker {
		b, err := broker.New(broker.Config{
			Store:  st,
			Routes: map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: cli.Name}}}},
			Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Register(&cli.Channel{})
		t.Cleanup(b.Close)
		return b
	}
	return mk(), mk()
}

// An answer to a question asked here, which was cancelled elsewhere, is
// refused as closed and changes nothing, although this instance has not
// heard of the cancellation yet.
func TestAnswerToQuestionClosedElsewhereIsRefused(t *testing.T) {
	here, elsewhere := twoInstances(t)
	ctx := context.Background()
	q, _, err := here.Ask(ctx, "agent", dbQuestion())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := elsewhere.Cancel(ctx, "agent", q.ID, "plans changed"); err != nil {
		t.Fatal(err)
	}
	r := here.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + q.ID + " 2"})
	if r.OK || !errors.Is(r.Err, broker.ErrClosed) || !strings.Contains(r.Text, "cancelled") || !strings.Contains(r.Text, "plans changed") {
		t.Fatalf("reply = %q (ok %v, err %v), want the question's cancellation", r.Text, r.OK, r.Err)
	}
	got, err := elsewhere.Get(ctx, "agent", q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != broker.StatusCancelled || got.AnsweredBy != nil || len(got.Answers) != 0 {
		t.Fatalf("after the refused answer: %s, answered by %v, answers %v", got.Status, got.AnsweredBy, got.Answers)
	}
}

// A wait on a question asked here that ends while this instance has not
// heard of its answer elsewhere returns the question as the store has
// it, answered, not as this instance asked it.
func TestWaitEndingReturnsTheStoredQuestion(t *testing.T) {
	here, elsewhere := twoInstances(t)
	ctx := context.Background()
	q, _, err := here.Ask(ctx, "agent", dbQuestion())
	if err != nil {
		t.Fatal(err)
	}
	r := elsewhere.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + q.ID + " 2"})
	if !r.OK {
		t.Fatalf("answer elsewhere refused: %s", r.Text)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	got, err := here.Wait(wctx, "agent", q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != broker.StatusAnswered || got.AnsweredBy == nil || got.AnsweredBy.User != "ana" {
		t.Fatalf("wait returned %s answered by %v, want answered by ana", got.Status, got.AnsweredBy)
	}
}

// A wait on another agent's question asked here finds nothing, as it
// does for a question it reads from the store.
func TestWaitOnAnotherAgentsRememberedQuestion(t *testing.T) {
	here, _ := twoInstances(t)
	ctx := context.Background()
	q, _, err := here.Ask(ctx, "agent", dbQuestion())
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if got, err := here.Wait(wctx, "intruder", q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("wait by another agent = %v, %v; want not found", got, err)
	}
}
