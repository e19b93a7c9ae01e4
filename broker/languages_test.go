package broker_test

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestLanguagesChoose: the person's locale for a direct message, else the
// route's, else the channel's, else none.
func TestLanguagesChoose(t *testing.T) {
	people, err := broker.NewPeople([]broker.Person{
		{ID: "ana", Accounts: []string{"telegram:42", "slack:U2"}, Locale: "ja"},
		{ID: "bo", Accounts: []string{"telegram:43"}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]broker.Route{broker.DefaultRoute: {}, "ops": {Locale: "de"}}
	l := broker.NewLanguages(people, routes, map[string]string{"telegram": "en-XA"})
	q := func(route string, targets ...string) *broker.Question {
		out := &broker.Question{Route: route}
		for _, s := range targets {
			ch, chat, _ := strings.Cut(s, ":")
			out.Targets = append(out.Targets, broker.Target{Channel: ch, Chat: chat})
		}
		return out
	}
	for _, c := range []struct {
		name, channel string
		q             *broker.Question
		want          string
	}{
		{"a person's direct message", "telegram", q("ops", "telegram:42"), "ja"},
		{"a direct message in slack", "slack", q("", "slack:U2", "telegram:-100"), "ja"},
		{"a person without a locale: the route's", "telegram", q("ops", "telegram:43"), "de"},
		{"a group chat: the route's", "telegram", q("ops", "telegram:-100"), "de"},
		{"a direct message among other chats: the route's", "telegram", q("ops", "telegram:42", "telegram:-100"), "de"},
		{"no route locale: the channel's", "telegram", q("", "telegram:-100"), "en-XA"},
		{"nothing chosen", "slack", q("", "slack:C1"), ""},
	} {
		if got := l.Locale(c.q, c.channel); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := (*broker.Languages)(nil).Locale(q("ops", "telegram:42"), "telegram"); got != "" {
		t.Errorf("nil chooser: %q", got)
	}
	if got := l.Person("ana"); got != "ja" {
		t.Errorf("Person(ana) = %q", got)
	}
	if _, err := broker.NewPeople([]broker.Person{{ID: "cy", Locale: "tlh"}}, nil); err == nil || !strings.Contains(err.Error(), `people[0].locale: "tlh" is not a supported language`) {
		t.Errorf("an unknown locale: %v", err)
	}
}
