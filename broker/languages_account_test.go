package broker_test

import (
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
