package broker_test

import (
	"slices"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

func TestResponderPeople(t *testing.T) {
	d, err := broker.NewPeople([]broker.Person{
		{ID: "ana", Accounts: []string{"slack:U1"}},
		{ID: "bo", Accounts: []string{"telegram:42"}},
		{ID: "cy"},
	}, map[string][]string{"ops": {"bo", "cy"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		entries []string
		want    []string
	}{
		{nil, nil},
		{[]string{"person:ana"}, []string{"ana"}},
		{[]string{"group:ops", "person:bo"}, []string{"bo", "cy"}},
		{[]string{"slack:U1", "42"}, []string{"ana", "bo"}},
		{[]string{"role:admin", "slack:U9", "person:nobody", "bad entry"}, nil},
	} {
		if got := broker.ResponderPeople(c.entries, d); !slices.Equal(got, c.want) {
			t.Errorf("ResponderPeople(%q) = %q; want %q", c.entries, got, c.want)
		}
	}
}
