package web

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// A post or edit that arrives after the question's end (the broker makes
// them in-process, from several goroutines) is not broadcast: no page
// shows it open again. A later change of a pending question is, and once
// the end is older than endedTTL the inbox has forgotten it.
func TestPublishNeverReopens(t *testing.T) {
	c, err := New(Config{}, nopHandler{}, Options{Lister: emptyLister{}, Loopback: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	clock := time.Now()
	c.now = func() time.Time { return clock }
	events, ok := c.hub.subscribe(c.loc, reader{})
	if !ok {
		t.Fatal("hub closed")
	}
	next := func() (view, bool) {
		select {
		case ev := <-events:
			var v view
			if err := json.Unmarshal(ev, &v); err != nil {
				t.Fatalf("event %s: %v", ev, err)
			}
			return v, true
		default:
			return view{}, false
		}
	}
	ctx := context.Background()
	q := brokertest.NewQuestion("k7m2qx", "agent", clock)
	if _, err := c.Post(ctx, q, ""); err != nil {
		t.Fatal(err)
	}
	if v, ok := next(); !ok || v.ID != q.ID || v.Status != broker.StatusPending {
		t.Fatalf("post: got %+v (%v), want the question pending", v, ok)
	}
	done := q.Clone()
	done.Status, done.ResolvedAt = broker.StatusCancelled, clock
	if err := c.Update(ctx, done, broker.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	if v, ok := next(); !ok || v.Status != broker.StatusCancelled {
		t.Fatalf("end: got %+v (%v), want the question cancelled", v, ok)
	}
	if err := c.Update(ctx, q, broker.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Remind(ctx, q, broker.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	if v, ok := next(); ok {
		t.Fatalf("a late pending view was broadcast after the end: %+v", v)
	}
	other := brokertest.NewQuestion("p3n8wz", "agent", clock)
	if _, err := c.Post(ctx, other, ""); err != nil {
		t.Fatal(err)
	}
	changed := other.Clone()
	changed.Progress = []*broker.Answer{{Selected: []string{"SQLite"}}}
	if err := c.Update(ctx, changed, broker.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	if v, ok := next(); !ok || v.ID != other.ID {
		t.Fatalf("post of another question: got %+v (%v)", v, ok)
	}
	if v, ok := next(); !ok || v.ID != other.ID || v.Rank != 1 {
		t.Fatalf("pending question's change not shown: %+v (%v)", v, ok)
	}
	if n := c.endedLen(); n != 1 {
		t.Fatalf("%d ended questions remembered, want 1", n)
	}
	clock = clock.Add(endedTTL + time.Second)
	if _, err := c.Post(ctx, brokertest.NewQuestion("w4t9vb", "agent", clock), ""); err != nil {
		t.Fatal(err)
	}
	if n := c.endedLen(); n != 0 {
		t.Fatalf("%d ended questions remembered past endedTTL, want 0", n)
	}
	if !c.InProcess("") || c.InProcess("room") {
		t.Fatal("InProcess: want true for the inbox only")
	}
}
