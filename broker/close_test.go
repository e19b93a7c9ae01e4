package broker_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// Closing the broker while asks are still being served (an HTTP server
// that stopped listening does not wait for its handlers) neither races
// nor loses a post: a question stored after the close keeps its post in
// the outbox, and the next broker on the store posts it.
func TestCloseWhileAsking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}}
	b, err := broker.New(broker.Config{Store: st, Routes: routes, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, st, outbox.Config{})
	ch := brokertest.NewChannel("chat")
	ch.PostDelay = 20 * time.Millisecond // posts under way while Close waits
	b.Register(ch)
	var wg sync.WaitGroup
	ids := make(chan string, 40)
	for i := range 40 {
		wg.Go(func() {
			time.Sleep(time.Duration(i) * 5 * time.Millisecond)
			q, _, err := b.Ask(context.Background(), "agent", dbQuestion())
			if err == nil {
				ids <- q.ID
			}
		})
	}
	time.Sleep(50 * time.Millisecond)
	b.Close()
	wg.Wait()
	close(ids)
	st.Close()

	st2, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	b2, err := broker.New(broker.Config{Store: st2, Routes: routes, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b2, st2, outbox.Config{})
	ch2 := brokertest.NewChannel("chat")
	b2.Register(ch2)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b2.RunOutbox(ctx); close(done) }()
	defer func() { cancel(); <-done; b2.Close() }()
	for id := range ids {
		deadline := time.Now().Add(30 * time.Second)
		for {
			tasks, err := st2.PlatformWork(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if len(tasks) == 1 && tasks[0].State == broker.TaskDone {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the post of %s, asked while the broker closed, was never made: %+v", id, tasks)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
