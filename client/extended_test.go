package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/timeouts"
)

// Someone snoozes the question an Ask waits on: OnExtended learns the new
// deadline, the event stream shows the extended event, the old deadline
// passes without the question ending, and Ask returns the answer given
// after it.
func TestAskWaitsPastTheOldDeadline(t *testing.T) {
	br := newBridge(t, nil)
	c := newClient(br)
	extended := make(chan client.Result, 4)
	c.OnExtended = func(r client.Result) { extended <- r }
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	events, errc := c.Events(ctx, client.EventsFilter{LastEventID: "0"})

	q := deploy
	q.Route, q.Timeout = "snoozy", "1h"
	type outcome struct {
		res *client.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := c.Ask(ctx, q)
		done <- outcome{res, err}
	}()
	asked := pendingID(t, br)
	for br.B.Waiting() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if r := br.B.HandleInbound(ctx, broker.Inbound{Channel: "auto", Chat: "room", User: "u1", Name: "ana", Text: "/snooze " + asked.ID}); !r.OK {
		t.Fatalf("snooze: %s", r.Text)
	}
	next := asked.ExpiresAt.Add(30 * time.Minute)
	select {
	case r := <-extended:
		if r.ID != asked.ID || r.Status != client.StatusPending || !r.ExpiresAt.Equal(next) {
			t.Fatalf("OnExtended got %+v, want %s pending until %v", r, asked.ID, next)
		}
	case <-ctx.Done():
		t.Fatal("OnExtended was not told of the snooze")
	}
	sw := timeouts.New(br.B, br.sb.Store, timeouts.Options{})
	if st, err := sw.Sweep(ctx, asked.ExpiresAt); err != nil || st.TimedOut != 0 {
		t.Fatalf("sweep at the old deadline: %+v, %v; want nothing timed out", st, err)
	}
	if r := br.B.HandleInbound(ctx, broker.Inbound{Channel: "auto", Chat: "room", User: "u1", Name: "ana", Text: "/answer " + asked.ID + " 1"}); !r.OK {
		t.Fatalf("answer: %s", r.Text)
	}
	o := <-done
	if o.err != nil || o.res.Status != client.StatusAnswered {
		t.Fatalf("Ask = %+v, %v; want the answer given after the old deadline", o.res, o.err)
	}

	for _, want := range []string{client.EventExtended, client.EventResolved} {
		var ev client.Event
		select {
		case ev = <-events:
		case err := <-errc:
			t.Fatalf("stream ended: %v", err)
		case <-ctx.Done():
			t.Fatalf("no %s event", want)
		}
		if ev.Type != want || ev.Result.ID != asked.ID {
			t.Fatalf("event %+v, want %s of %s", ev, want, asked.ID)
		}
		if want == client.EventExtended && (ev.Extension == nil || ev.Extension.SnoozedBy.Name != "ana" || ev.Extension.Snoozes != 1 ||
			!ev.Result.ExpiresAt.Equal(next) || !ev.Extension.ExpiresAt.Equal(next) || ev.Result.Status != client.StatusPending) {
			t.Fatalf("extended event %+v (extension %+v), want snooze 1 by ana to %v", ev, ev.Extension, next)
		}
		if want == client.EventResolved && ev.Extension != nil {
			t.Fatalf("resolved event with an extension: %+v", ev.Extension)
		}
	}
}
