// Package cli is the text-only channel: questions posted to it are read
// with `bridge list` (or GET /v1/questions) and answered with typed
// commands sent to POST /v1/commands, for example by `bridge answer`. Any
// text-only integration (SMS, e-mail, an IRC gateway) can use it the same
// way. It posts nothing anywhere: the store is its inbox.
package cli

import (
	"context"

	"github.com/askbridge/askbridge/broker"
)

// Name is the default name of the text channel.
const Name = "cli"

// Channel is a text-only channel whose inbox is the store.
type Channel struct{ name string }

var _ broker.Channel = (*Channel)(nil)

// New returns a text channel called name ("cli" when empty).
func New(name string) *Channel {
	if name == "" {
		name = Name
	}
	return &Channel{name: name}
}

// Name returns the channel's name.
func (c *Channel) Name() string { return c.name }

// Post makes q visible to text clients: listing the store shows it, so
// there is nothing to send. The reference is the question id.
func (c *Channel) Post(_ context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	return broker.MessageRef{Channel: c.name, Chat: chat, MessageID: q.ID}, nil
}

// Update has nothing to edit: text clients read the outcome from the store.
func (c *Channel) Update(context.Context, *broker.Question, broker.MessageRef) error { return nil }
