package outbox_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// A direct attempt that fails leaves a retry due; the outbox loop, asleep
// until the next due task with an idle sleep and a poll far longer than
// the test's deadline, still makes the retry: it is woken at the retry's
// time. Without that wake-up the copy would wait an hour.
func TestFailedDirectAttemptIsRetriedWhileTheLoopSleeps(t *testing.T) {
	tests := []struct {
		name string
		// run makes a direct attempt fail while the loop sleeps, brings
		// the platform back and waits for the retry.
		run func(t *testing.T, b *broker.Broker, st broker.Store, ch *brokertest.Channel)
	}{
		{"post", func(t *testing.T, b *broker.Broker, st broker.Store, ch *brokertest.Channel) {
			ch.SetDown(true)
			q, _, err := b.Ask(context.Background(), "agent", dbQuestion())
			if err != nil {
				t.Fatalf("Ask: %v", err)
			}
			waitTask(t, st, q.ID, broker.TaskPost, broker.TaskRetrying)
			ch.SetDown(false)
			if !ch.WaitFor(60*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) == 1 }) {
				t.Fatalf("the failed post was not retried (copies %v)", copyStatesOf(t, b, q.ID))
			}
		}},
		{"edit", func(t *testing.T, b *broker.Broker, st broker.Store, ch *brokertest.Channel) {
			q, _, err := b.Ask(context.Background(), "agent", dbQuestion())
			if err != nil || len(ch.Posts()) != 1 {
				t.Fatalf("Ask: %v, %d copies; want one", err, len(ch.Posts()))
			}
			ch.SetDown(true)
			if r := b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 2")); !r.OK {
				t.Fatal(r.Text)
			}
			waitTask(t, st, q.ID, broker.TaskEdit, broker.TaskRetrying)
			ch.SetDown(false)
			if !ch.WaitFor(60*time.Second, func(c *brokertest.Channel) bool { return len(c.Updates()) == 1 }) {
				t.Fatalf("the failed edit was not retried (copies %v)", copyStatesOf(t, b, q.ID))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
			if err != nil {
				t.Fatal(err)
			}
			routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}}
			// The claims of the direct attempts last longer than the
			// test's deadline too (2×PostTimeout+10 s), so that no
			// lapsing claim wakes the loop either.
			b, err := broker.New(broker.Config{Store: st, Routes: routes, Logger: slog.New(slog.DiscardHandler), PostTimeout: time.Minute,
				Grace: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			outbox.Attach(b, st, outbox.Config{Poll: time.Hour, MaxIdle: time.Hour,
				BaseBackoff: 50 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
			ch := brokertest.NewChannel("chat")
			b.Register(ch)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { b.RunOutbox(ctx); close(done) }()
			t.Cleanup(func() { cancel(); <-done; b.Close(); st.Close() })
			// Let the loop find the outbox empty and go to sleep, so that
			// what follows happens while it sleeps.
			time.Sleep(200 * time.Millisecond)
			tt.run(t, b, st, ch)
		})
	}
}

// waitTask waits until the task of kind of question id is in state.
func waitTask(t *testing.T, st broker.Store, id string, kind broker.TaskKind, state string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		tasks, err := st.PlatformWork(context.Background(), id)
		if err != nil {
			t.Fatalf("PlatformWork: %v", err)
		}
		for _, x := range tasks {
			if x.Kind == kind && x.State == state {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the %s task of %s never reached %s: %+v", kind, id, state, tasks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func copyStatesOf(t *testing.T, b *broker.Broker, id string) []string {
	t.Helper()
	cs, err := b.Copies(context.Background(), id)
	if err != nil {
		t.Fatalf("Copies: %v", err)
	}
	var out []string
	for _, c := range cs {
		out = append(out, c.Target.String()+"="+c.State+" ("+c.LastError+")")
	}
	return out
}
