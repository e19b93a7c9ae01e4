package brokertest

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// StartBroker builds a broker on st for tests of the packages around
// the broker (the outbox's) and runs it until the test ends. Its routes
// are routes, or when nil the default route posting to chats "c1" and
// "c2" of the recording channel "chat", which it registers and returns;
// its clock is now, its log discarded.
// attach, unless nil, gives the broker its deliverer before it runs
// (outbox.Attach: this package cannot import the outbox, which imports
// it), and the deliverer's loop runs beside the broker's. When the test
// ends both loops stop and the broker closes; st stays the caller's to
// close, with a clean-up registered before this call.
func StartBroker(t testing.TB, st broker.Store, routes map[string]broker.Route, now func() time.Time, attach func(*broker.Broker)) (*broker.Broker, *Channel) {
	t.Helper()
	if routes == nil {
		routes = map[string]broker.Route{
			broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "chat", Chat: "c2"}}},
		}
	}
	// A long grace: an ask returns once its first posts are done, and on a
	// busy machine they may take longer than the default 2 s.
	b, err := broker.New(broker.Config{Store: st, Routes: routes, Now: now, Logger: slog.New(slog.DiscardHandler),
		Grace: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if attach != nil {
		attach(b)
	}
	ch := NewChannel("chat")
	b.Register(ch)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	delivered := make(chan struct{})
	go func() { b.RunOutbox(ctx); close(delivered) }()
	t.Cleanup(func() { cancel(); <-done; <-delivered; b.Close() })
	return b, ch
}

// WaitCopies waits until the copies of question id are in the states
// want, each "target=state" in the order Broker.Copies gives them
// ("chat:c1=posted"), and fails t when they are not within 15 seconds.
func WaitCopies(t testing.TB, b *broker.Broker, id string, want ...string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := copyStates(t, b, id)
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("copies of %s = %v, want %v", id, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// copyStates returns the copies of question id as "target=state".
func copyStates(t testing.TB, b *broker.Broker, id string) []string {
	t.Helper()
	cs, err := b.Copies(context.Background(), id)
	if err != nil {
		t.Fatalf("Copies: %v", err)
	}
	var out []string
	for _, c := range cs {
		out = append(out, c.Target.String()+"="+c.State)
	}
	return out
}
