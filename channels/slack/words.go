package slack

import (
	"context"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// Slack's limits on a modal's own words: its title and its submit and
// close buttons, and a text input's placeholder.
const (
	maxModalTitle  = 24
	maxPlaceholder = 150
)

// The channel's own words (its modal and the short texts it tells a
// person itself) are in the language of the card they belong to; where
// no card is at hand, in the language of the person who acted, else the
// channel's.

// words prints for the person with Slack user id user: their language,
// else the channel's.
func (c *Channel) words(user string) *i18n.Printer {
	if l := c.langs.Account(Name, user); l != "" {
		return i18n.For(l)
	}
	return i18n.For(c.locale)
}

// dialogReadWithin bounds the read of a dialog's question: Slack's
// trigger_id, which opens the modal, is good for 3 s after the tap.
const dialogReadWithin = 500 * time.Millisecond

// dialogWords prints a dialog about question id opened for in: in the
// language of the question's card, read through the broker as in may
// read it; else (the question is closed, unknown or not theirs, which
// the broker says when the dialog is sent, or the read is slow) in the
// person's.
func (c *Channel) dialogWords(ctx context.Context, in broker.Inbound, id string) *i18n.Printer {
	ctx, cancel := context.WithTimeout(ctx, dialogReadWithin)
	defer cancel()
	in.Text, in.ReplyTo, in.Attachments = broker.FormatPending(id), "", nil
	if r := c.h.HandleInbound(ctx, in); r.OK && r.Question != nil {
		return i18n.For(c.localeOf(r.Question))
	}
	return c.words(in.User)
}
