package broker_test

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

// plainChannel posts but edits nothing, like the text channel.
type plainChannel struct{ inner *brokertest.Channel }

func (p plainChannel) Name() string { return "plain" }
func (p plainChannel) Post(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	ref, err := p.inner.Post(ctx, q, chat)
	ref.Channel = "plain"
	return ref, err
}

// The copies of a resolved question show the edit of a channel that edits
// its copies, and no edit at all for a channel that edits none (rather
// than a "dropped" edit that suggests something was left undone).
func TestCopiesOmitEditsOfChannelsThatEditNothing(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "plain"}}}}
	b, err := broker.New(broker.Config{Store: st, Routes: routes, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, st, outbox.Config{Poll: 10 * time.Millisecond})
	ch := brokertest.NewChannel("chat")
	b.Register(ch)
	b.Register(plainChannel{inner: brokertest.NewChannel("plain")})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.RunOutbox(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; b.Close(); st.Close() })

	q, _, err := b.Ask(context.Background(), "agent", dbQuestion())
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	// Resolve once both copies are posted (a busy machine may end the
	// ask's grace first), so that both have an edit to show.
	if !ch.WaitFor(15*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) == 1 }) {
		t.Fatal("the copy on the channel that edits was never posted")
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		refs, err := st.Messages(context.Background(), q.ID)
		if err == nil && len(refs) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("copies recorded: %v, %v; want 2", refs, err)
		}
	}
	if _, err := b.Cancel(context.Background(), "agent", q.ID, ""); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		cs, err := b.Copies(context.Background(), q.ID)
		if err != nil {
			t.Fatalf("Copies: %v", err)
		}
		var chat, plain *broker.Copy
		for i := range cs {
			switch cs[i].Target.Channel {
			case "chat":
				chat = &cs[i]
			case "plain":
				plain = &cs[i]
			}
		}
		if chat != nil && plain != nil && chat.Edit == broker.TaskDone {
			if plain.State != broker.CopyPosted || plain.Edit != "" || plain.EditLastError != "" {
				t.Fatalf("copy on the channel that edits nothing = %+v, want posted with no edit", *plain)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("copies never settled: %+v", cs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
