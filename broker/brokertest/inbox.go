package brokertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Inbox is a broker.InboundHandler that records what a channel hands to
// the broker, for tests of a channel's inbound decoding without a broker.
// Reply decides the answer (default: OK, "Recorded: " and the text). It
// is the one recording handler of the channel tests.
type Inbox struct {
	Reply func(broker.Inbound) broker.Reply

	mu      sync.Mutex
	got     []broker.Inbound
	taken   int
	changed chan struct{}
}

var _ broker.InboundHandler = (*Inbox)(nil)

// HandleInbound records in and answers with Reply.
func (b *Inbox) HandleInbound(_ context.Context, in broker.Inbound) broker.Reply {
	b.mu.Lock()
	b.got = append(b.got, in)
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	b.mu.Unlock()
	if b.Reply != nil {
		return b.Reply(in)
	}
	return broker.Reply{OK: true, Text: "Recorded: " + in.Text}
}

// All returns everything recorded so far, oldest first.
func (b *Inbox) All() []broker.Inbound {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]broker.Inbound(nil), b.got...)
}

// Take returns what was recorded since the last Take, and forgets it.
func (b *Inbox) Take() []broker.Inbound {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]broker.Inbound(nil), b.got[b.taken:]...)
	b.taken = len(b.got)
	return out
}

// Wait waits until n actions were recorded in all and returns them,
// failing the test when they do not arrive within 10 seconds.
func (b *Inbox) Wait(t testing.TB, n int) []broker.Inbound {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		b.mu.Lock()
		if len(b.got) >= n {
			out := append([]broker.Inbound(nil), b.got...)
			b.mu.Unlock()
			return out
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("waited for %d inbound actions, got %d: %+v", n, len(b.All()), b.All())
		}
	}
}
