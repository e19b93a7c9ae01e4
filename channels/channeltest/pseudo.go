package channeltest

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/internal/i18n"
	"github.com/askbridge/askbridge/internal/i18n/i18ntest"
)

// ShowLimits are a platform's limits on what one message shows: its text
// (as the harness's Message.Text counts it, in characters) and a button's
// label. (Limits are those on what its elements carry.)
type ShowLimits struct {
	Text, Label int
}

// command matches a typed command as cards show it ("/answer k7m2qx.2
// 1,3", "/decline k7m2qx", "!answer k7m2qx other"): the command words
// stay English in every language.
var command = regexp.MustCompile(`[/!][a-z]+ [a-z0-9]+(\.[0-9]+)?( ([0-9,]+|other))?`)

// pseudoTexts are the texts of the pseudo-locale run that come from the
// agent and the people, which no catalog holds.
var pseudoTexts = []string{
	"Which database should we use?", "Database", "Postgres", "Mature", "SQLite", "Embedded",
	"Which caches?", "Caches", "Redis", "Memcached", "Anything else?", "Ship the release?", "Allow", "Deny",
	"Ana Lima", "Bob Reis", "UTC",
}

// RunPseudoLocale posts a dialog and a voting question through the
// platform with the channel's locale set to the pseudo-locale (en-XA,
// as channels.X.locale sets it), answers a third question, and checks
// that every word of every message the fake received, buttons included,
// came from the catalog (the agent's and people's texts and the typed
// commands aside), and that no message or label is past the platform's
// limits. Call it from one test per channel named
// TestPseudoLocale<Platform>.
func RunPseudoLocale(t *testing.T, build Build, limits ShowLimits) {
	p := build(t)
	chats, people := p.Chats(), p.People()
	name := p.Name()
	target := broker.Target{Channel: name, Chat: chats[0]}
	account := func(i int) string { return name + ":" + people[i].ID }
	b := NewBridge(t, map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{target}},
		"prod": {Targets: []broker.Target{target}, Responders: []string{account(0), account(1)},
			Policy: broker.Policy{Quorum: 2, Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2}}},
	}, WithPeople(t,
		broker.Person{ID: "ana", Name: "Ana Lima", Accounts: []string{account(0)}},
		broker.Person{ID: "bob", Name: "Bob Reis", Accounts: []string{account(1)}},
	))
	langs := broker.NewLanguages(nil, nil, map[string]string{name: i18n.Pseudo})
	b.Start(p.NewChannel(t, b.Broker, channels.Options{Logger: b.Logger, Languages: langs}))

	dialog := b.Ask(&broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database should we use?", Header: "Database",
			Options: []broker.Option{{Label: "Postgres", Description: "Mature"}, {Label: "SQLite", Description: "Embedded"}}},
		{Question: "Which caches?", Header: "Caches", MultiSelect: true,
			Options: []broker.Option{{Label: "Redis"}, {Label: "Memcached"}}},
		{Question: "Anything else?"},
	}})
	vote := b.Ask(&broker.AskRequest{Question: "Ship the release?", Route: "prod",
		Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}})
	single := b.Ask(dbQuestion(""))

	s := &session{Bridge: b, p: p, chats: chats, people: people}
	for _, q := range []*broker.Question{dialog, vote, single} {
		check(t, "the copy of "+q.ID, s.posted(t, chats[0], q), limits)
	}
	m := s.posted(t, chats[0], single)
	tap(t, p, chats[0], m, "SQLite")
	s.resolved(t, single.ID, "SQLite")
	s.edited(t, chats[0], m.ID, "SQLite")
	for _, m := range p.Messages(chats[0]) {
		check(t, "message "+m.ID, m, limits)
	}
}

// check reports the words of m that did not come from the catalog and
// what is past the limits.
func check(t *testing.T, what string, m Message, limits ShowLimits) {
	t.Helper()
	text := command.ReplaceAllString(m.Text, " ")
	if words := i18ntest.Untranslated(text, pseudoTexts...); len(words) > 0 {
		t.Errorf("%s has untranslated words %q:\n%s", what, words, m.Text)
	}
	if n := utf8.RuneCountInString(m.Text); n > limits.Text {
		t.Errorf("%s is %d characters, past the limit of %d:\n%s", what, n, limits.Text, m.Text)
	}
	for _, b := range m.Buttons {
		label := command.ReplaceAllString(b.Label, " ")
		if words := i18ntest.Untranslated(label, pseudoTexts...); len(words) > 0 {
			t.Errorf("%s: button %q has untranslated words %q", what, b.Label, words)
		}
		if n := utf8.RuneCountInString(b.Label); n > limits.Label {
			t.Errorf("%s: button %q is %d characters, past the limit of %d", what, b.Label, n, limits.Label)
		}
	}
	if strings.TrimSpace(m.Text) == "" {
		t.Errorf("%s is empty", what)
	}
}
