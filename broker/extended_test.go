package broker_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// A snooze ends a wait on the question early, with the question still
// pending and its new deadline, so that the agent learns it at once; the
// event log holds the extended event.
func TestSnoozeEndsAWaitWithTheNewDeadline(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2}})
	q := e.ask(t, allowDeny())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := make(chan *broker.Question, 1)
	go func() {
		w, err := e.b.Wait(ctx, "agent", q.ID)
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
		got <- w
	}()
	for e.b.Waiting() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/snooze "+q.ID)); !r.OK {
		t.Fatalf("snooze: %+v", r)
	}
	w := <-got
	if w == nil || w.Status != broker.StatusPending || !w.ExpiresAt.Equal(q.ExpiresAt.Add(30*time.Minute)) || ctx.Err() != nil {
		t.Fatalf("wait returned %+v (wait ended by its context: %v), want the pending question expiring at %v", w, ctx.Err(), q.ExpiresAt.Add(30*time.Minute))
	}
	evs, err := e.st.Events(context.Background(), "agent", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Type != broker.EventExtended || evs[0].Extension.SnoozedBy.User != "ana" || evs[0].Extension.Snoozes != 1 {
		t.Fatalf("events = %+v, want one extended event by ana", evs)
	}
}
