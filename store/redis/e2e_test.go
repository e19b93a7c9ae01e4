package redis_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestTwoInstances runs two brokers on one Redis, as two bridge instances
// behind a load balancer: an agent waits on instance A, a person answers
// through instance B, and A's waiter returns with the answer.
func TestTwoInstances(t *testing.T) {
	cfg := redistest.Shared(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	newInstance := func() *broker.Broker {
		st := open(t, cfg)
		b, err := broker.New(broker.Config{
			Store:  st,
			Routes: map[string]broker.Route{"default": {Targets: []broker.Target{{Channel: "web"}}}},
			Logger: quiet,
		})
		if err != nil {
			t.Fatalf("broker.New: %v", err)
		}
		outbox.Attach(b, st, outbox.Config{})
		b.Register(brokertest.NewChannel("web"))
		go b.Run(ctx)
		return b
	}
	a, b := newInstance(), newInstance()

	q, created, err := a.Ask(ctx, "agent-1", &broker.AskRequest{
		Question: "Which database?",
		Options:  []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}},
	})
	if err != nil || !created {
		t.Fatalf("Ask = %v, %v", created, err)
	}
	done := make(chan *broker.Question, 1)
	go func() {
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		got, err := a.Wait(wctx, "agent-1", q.ID)
		if err != nil {
			t.Errorf("Wait: %v", err)
		}
		done <- got
	}()

	reply := b.HandleInbound(ctx, broker.Inbound{Channel: "web", User: "u1", Name: "ana", Text: "/answer " + q.ID + " 2"})
	if !reply.OK {
		t.Fatalf("answer through instance B: %+v", reply)
	}
	select {
	case got := <-done:
		if got == nil || got.Status != broker.StatusAnswered || got.Answers["Which database?"].Selected[0] != "SQLite" {
			t.Fatalf("instance A's waiter got %+v, want answered SQLite", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("instance A's waiter never returned")
	}
	again := a.HandleInbound(ctx, broker.Inbound{Channel: "web", User: "u2", Name: "bo", Text: "/answer " + q.ID + " 1"})
	if again.OK {
		t.Fatalf("a second answer through instance A was recorded: %+v", again)
	}
	t.Logf("second answer: %s", again.Text)
}
