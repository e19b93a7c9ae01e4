package broker

import (
	"context"
	"time"

	"github.com/askbridge/askbridge/internal/i18n"
)

// Languages chooses the language each copy of a question is written in
// (docs/languages.md): the person's (people[].locale) for a copy that is
// a direct message to a known person, else the route's
// (routes.X.locale), else the channel's (channels.X.locale), else
// English. The web inbox, which knows who is signed in, asks for the
// person by id (Person) and falls back to the browser's Accept-Language
// itself.
//
// A nil *Languages chooses nothing (English).
type Languages struct {
	people   *People
	routes   map[string]Route
	channels map[string]string
}

// Languages returns the language chooser of b's routes, people and
// channel locales.
func (b *Broker) Languages() *Languages {
	return &Languages{people: b.cfg.People, routes: b.cfg.Routes, channels: b.cfg.ChannelLocales}
}

// words prints the reply to in about q: in the language of the person who
// acted, else q's route's, else the channel's. q may be nil (no question
// found).
func (b *Broker) words(in Inbound, q *Question) *i18n.Printer {
	if p := b.cfg.People.Of(in.Channel, in.User); p != nil && p.Locale != "" {
		return i18n.For(p.Locale)
	}
	l := b.Languages()
	if q == nil {
		return i18n.For(l.channels[in.Channel])
	}
	if loc := l.routes[l.routeName(q)].Locale; loc != "" {
		return i18n.For(loc)
	}
	return i18n.For(l.channels[in.Channel])
}

// NewLanguages returns a chooser from its parts, for channels built
// without a broker (tests, tools).
func NewLanguages(people *People, routes map[string]Route, channels map[string]string) *Languages {
	return &Languages{people: people, routes: routes, channels: channels}
}

// Locale returns the locale of channel's copies of q, "" when none is
// chosen (English). A question whose only target in channel is a
// person's account ("telegram:42", "slack:U0000002": a direct message)
// is in that person's language.
func (l *Languages) Locale(q *Question, channel string) string {
	if l == nil {
		return ""
	}
	for _, loc := range []string{l.dmPerson(q, channel), l.routes[l.routeName(q)].Locale, l.channels[channel]} {
		if loc != "" {
			return loc
		}
	}
	return ""
}

// Person returns the locale of the person with id, "" when they chose
// none.
func (l *Languages) Person(id string) string {
	if l == nil || l.people == nil {
		return ""
	}
	if p := l.people.Person(id); p != nil {
		return p.Locale
	}
	return ""
}

func (l *Languages) routeName(q *Question) string {
	if q.Route == "" {
		return DefaultRoute
	}
	return q.Route
}

// dmPerson is the locale of the person q's only target in channel names,
// or "".
func (l *Languages) dmPerson(q *Question, channel string) string {
	if l.people == nil {
		return ""
	}
	var only *Target
	for i, t := range q.Targets {
		if t.Channel != channel {
			continue
		}
		if only != nil {
			return ""
		}
		only = &q.Targets[i]
	}
	if only == nil || only.Chat == "" {
		return ""
	}
	if p := l.people.Of(channel, only.Chat); p != nil {
		return p.Locale
	}
	return ""
}

// Account returns the locale of the person whose account user is in
// channel ("slack", "U0000002"), "" when the account is nobody's or they
// chose none: the language of a channel's own words to someone acting
// without a card at hand.
func (l *Languages) Account(channel, user string) string {
	if l == nil {
		return ""
	}
	if p := l.people.Of(channel, user); p != nil {
		return p.Locale
	}
	return ""
}

// Words prints a channel's own words to the person whose account user
// is in channel, acting without a card at hand: in their language, else
// in fallback (the channel's locale, "" for English).
func (l *Languages) Words(channel, user, fallback string) *i18n.Printer {
	if loc := l.Account(channel, user); loc != "" {
		return i18n.For(loc)
	}
	return i18n.For(fallback)
}

// DialogReadWithin bounds the read of DialogWords: Slack's trigger_id
// and Discord's interaction answer, which open a dialog, are good for
// 3 s after the tap.
const DialogReadWithin = 500 * time.Millisecond

// DialogWords prints a dialog a channel opens for in about question id:
// in the language of the question's card in that channel (localeOf),
// read through h as in may read it ("/pending <id>", which records
// nothing) within DialogReadWithin; else (the question is closed,
// unknown or not theirs, which h says when the dialog is sent, or the
// read is slow) in the person's, else fallback (Words).
func (l *Languages) DialogWords(ctx context.Context, h InboundHandler, in Inbound, id string, localeOf func(*Question) string, fallback string) *i18n.Printer {
	ctx, cancel := context.WithTimeout(ctx, DialogReadWithin)
	defer cancel()
	in.Text, in.ReplyTo, in.Attachments = FormatPending(id), "", nil
	if r := h.HandleInbound(ctx, in); r.OK && r.Question != nil {
		return i18n.For(localeOf(r.Question))
	}
	return l.Words(in.Channel, in.User, fallback)
}
