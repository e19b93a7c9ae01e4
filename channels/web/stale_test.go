package web

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// A post or edit that arrives after the question's end (the broker makes
// them in-process, from several goroutines) does not show it open again;
// a later change of a pending question does show.
func TestPublishNeverReopens(t *testing.T) {
	c, err := New(Config{}, nopHandler{}, Options{Lister: emptyLister{}, Loopback: true, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	q := brokertest.NewQuestion("k7m2qx", "agent", time.Now())
	if _, err := c.Post(ctx, q, ""); err != nil {
		t.Fatal(err)
	}
	done := q.Clone()
	done.Status, done.ResolvedAt = broker.StatusCancelled, time.Now()
	if err := c.Update(ctx, done, broker.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(ctx, q, broker.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	qs, _ := c.remembered()
	if len(qs) != 1 || qs[0].Status != broker.StatusCancelled {
		t.Fatalf("remembered %v, want the question cancelled", qs)
	}
	other := brokertest.NewQuestion("p3n8wz", "agent", time.Now())
	if _, err := c.Post(ctx, other, ""); err != nil {
		t.Fatal(err)
	}
	changed := other.Clone()
	changed.Progress = []*broker.Answer{{Selected: []string{"SQLite"}}}
	if err := c.Update(ctx, changed, broker.MessageRef{}); err != nil {
		t.Fatal(err)
	}
	qs, _ = c.remembered()
	for _, x := range qs {
		if x.ID == other.ID && len(x.Progress) != 1 {
			t.Fatalf("pending question's change not shown: %+v", x)
		}
	}
	if !c.InProcess("") || c.InProcess("room") {
		t.Fatal("InProcess: want true for the inbox only")
	}
}
