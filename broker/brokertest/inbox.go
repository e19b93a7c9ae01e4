package brokertest

import (
	"context"
	"sync"

	"github.com/askbridge/askbridge/broker"
)

// Inbox is a broker.InboundHandler that records what a channel hands to
// the broker, for tests of a channel's inbound decoding without a broker.
// Reply decides the answer (default: OK, "Recorded").
type Inbox struct {
	Reply func(broker.Inbound) broker.Reply

	mu  sync.Mutex
	got []broker.Inbound
}

var _ broker.InboundHandler = (*Inbox)(nil)

// HandleInbound records in and answers with Reply.
func (b *Inbox) HandleInbound(_ context.Context, in broker.Inbound) broker.Reply {
	b.mu.Lock()
	b.got = append(b.got, in)
	b.mu.Unlock()
	if b.Reply != nil {
		return b.Reply(in)
	}
	return broker.Reply{OK: true, Text: "Recorded"}
}

// Take returns what was recorded since the last Take, and forgets it.
func (b *Inbox) Take() []broker.Inbound {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.got
	b.got = nil
	return out
}
