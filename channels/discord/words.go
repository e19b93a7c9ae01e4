package discord

import (
	"context"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// The channel's own words (its modals and the short texts it tells a
// person itself) are in the language of the card they belong to; where
// no card is at hand, in the language of the person who acted, else the
// channel's.

// words prints for the person with Discord user id user: their
// language, else the channel's.
func (c *Channel) words(user string) *i18n.Printer { return c.langs.Words(Name, user, c.locale) }

// dialogWords prints a dialog about question id opened for in: in the
// language of the question's card, read through the broker as in may
// read it; else (the question is closed, unknown or not theirs, which
// the broker says when the dialog is sent, or the read is slow) in the
// person's.
func (c *Channel) dialogWords(ctx context.Context, in broker.Inbound, id string) *i18n.Printer {
	return c.langs.DialogWords(ctx, c.h, in, id, c.localeOf, c.locale)
}
