package broker_test

import (
	"context"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestLanguagesAccount: an account's person's locale, on each of their
// accounts; none for an account of nobody, a person who chose none, or
// a nil chooser.
func TestLanguagesAccount(t *testing.T) {
	people, err := broker.NewPeople([]broker.Person{
		{ID: "ana", Accounts: []string{"telegram:42", "slack:U2"}, Locale: "ja"},
		{ID: "bo", Accounts: []string{"telegram:43"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := broker.NewLanguages(people, map[string]broker.Route{broker.DefaultRoute: {Locale: "de"}}, map[string]string{"telegram": "de"})
	for _, c := range []struct{ channel, user, want string }{
		{"telegram", "42", "ja"},
		{"slack", "U2", "ja"},
		{"telegram", "43", ""},
		{"telegram", "44", ""},
		{"discord", "42", ""},
	} {
		if got := l.Account(c.channel, c.user); got != c.want {
			t.Errorf("Account(%s, %s) = %q, want %q", c.channel, c.user, got, c.want)
		}
	}
	var none *broker.Languages
	if got := none.Account("telegram", "42"); got != "" {
		t.Errorf("a nil chooser gave %q", got)
	}
}

// replyFunc answers HandleInbound with a reply of its own.
type replyFunc func(broker.Inbound) broker.Reply

func (f replyFunc) HandleInbound(_ context.Context, in broker.Inbound) broker.Reply { return f(in) }

// TestLanguagesWordsAndDialogWords: a channel's own words go to the
// person's language, else the channel's; a dialog's go to its question's
// card language when the broker lets the person read it (by "/pending
// <id>"), else to the person's.
func TestLanguagesWordsAndDialogWords(t *testing.T) {
	people, err := broker.NewPeople([]broker.Person{{ID: "ana", Accounts: []string{"slack:U2"}, Locale: "ja"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := broker.NewLanguages(people, nil, nil)
	if got := l.Words("slack", "U2", "de").Locale(); got != "ja" {
		t.Errorf("Words for ana = %s, want ja", got)
	}
	if got := l.Words("slack", "U9", "de").Locale(); got != "de" {
		t.Errorf("Words for nobody's account = %s, want the channel's de", got)
	}
	var asked []string
	q := &broker.Question{ID: "k7m2qx", Route: "ops"}
	open := replyFunc(func(in broker.Inbound) broker.Reply {
		asked = append(asked, in.Text)
		return broker.Reply{OK: true, Question: q}
	})
	byRoute := func(q *broker.Question) string {
		if q.Route == "ops" {
			return "de"
		}
		return ""
	}
	in := broker.Inbound{Channel: "slack", User: "U2", Text: "other k7m2qx.1", ReplyTo: "m1"}
	if got := l.DialogWords(context.Background(), open, in, "k7m2qx", byRoute, "").Locale(); got != "de" || len(asked) != 1 || asked[0] != "/pending k7m2qx" {
		t.Errorf("DialogWords of a readable question = %s after %q, want the card's de after one /pending k7m2qx", got, asked)
	}
	closed := replyFunc(func(broker.Inbound) broker.Reply { return broker.Reply{Text: "closed"} })
	if got := l.DialogWords(context.Background(), closed, in, "k7m2qx", byRoute, "").Locale(); got != "ja" {
		t.Errorf("DialogWords of a closed question = %s, want the person's ja", got)
	}
}
