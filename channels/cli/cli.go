// Package cli is the text-only channel: questions posted to it are read
// with `bridge list` (or GET /v1/questions) and answered with typed
// commands sent to POST /v1/commands, for example by `bridge answer`. Any
// text-only integration (SMS, e-mail, an IRC gateway) can use it the same
// way. It posts nothing anywhere: the store is its inbox, so it has no
// copies to edit and implements no broker.Updater.
package cli

import (
	"context"
	"errors"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
)

// Name is the text channel's name in routes ("cli").
const Name = "cli"

// Channel is a text-only channel whose inbox is the store. The zero
// Channel is ready to use; New is how the wiring builds it from its
// configuration section, like every other channel.
type Channel struct{}

var (
	_ broker.Channel   = (*Channel)(nil)
	_ broker.InProcess = (*Channel)(nil)
	_ broker.Watchers  = (*Channel)(nil)
)

// New returns the text channel. Typed commands reach the broker through
// the API rather than through the channel, so h is only checked; it is
// taken so that every channel is built the same way.
func New(cfg Config, h broker.InboundHandler, _ channels.Options) (*Channel, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("cli: an inbound handler is required")
	}
	return &Channel{}, nil
}

// Name returns "cli".
func (c *Channel) Name() string { return Name }

// InProcess reports that every post here is made in the bridge's process
// (there is nothing to send), so the broker needs no outbox for it.
func (c *Channel) InProcess(string) bool { return true }

// Watched reports false: the store is the text channel's inbox, and
// nothing tells anyone that a question arrived in it.
func (c *Channel) Watched(context.Context, *broker.Question, string) (bool, error) {
	return false, nil
}

// WatchedPlace is "": a question here is read by listing, not watched.
func (c *Channel) WatchedPlace() string { return "" }

// Post makes q visible to text clients: listing the store shows it, so
// there is nothing to send. The reference is the question id.
func (c *Channel) Post(_ context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	return broker.MessageRef{Channel: Name, Chat: chat, MessageID: q.ID}, nil
}
