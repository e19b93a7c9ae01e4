package broker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// A person with a time zone reads the times of their /pending and
// /snooze replies in it, from any account; others read the bridge's.
func TestRepliesInThePersonsZone(t *testing.T) {
	people := newPeople(t, []broker.Person{
		{ID: "ana", Accounts: []string{"chat:ana"}, Timezone: "Asia/Tokyo"},
		{ID: "bo", Accounts: []string{"chat:bo"}},
	}, nil)
	clk := brokertest.NewClock(time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC))
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}},
		Policy: broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2}}}}
	b, _ := startBridge(t, broker.Config{Routes: routes, Now: clk.Now, People: people}, brokertest.NewChannel("chat"))
	ctx := context.Background()
	q, _, err := b.Ask(ctx, "agent", allowDeny())
	if err != nil {
		t.Fatal(err)
	}
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	want := "Expires " + broker.WhenText(q.ExpiresAt, clk.Now(), tokyo)
	if r := b.HandleInbound(ctx, in("c1", "ana", "/pending")); !r.OK || !strings.Contains(r.Text, want) || !strings.Contains(want, "JST") {
		t.Fatalf("Ana's /pending: %q, want %q", r.Text, want)
	}
	if r := b.HandleInbound(ctx, in("c1", "bo", "/pending")); !r.OK || !strings.Contains(r.Text, "Expires "+broker.WhenText(q.ExpiresAt, clk.Now(), time.UTC)) {
		t.Fatalf("Bo's /pending: %q, want UTC times", r.Text)
	}
	r := b.HandleInbound(ctx, in("c1", "ana", "/snooze "+q.ID))
	if want := "now expires at " + broker.WhenText(q.ExpiresAt.Add(30*time.Minute), clk.Now(), tokyo); !r.OK || !strings.Contains(r.Text, want) {
		t.Fatalf("Ana's /snooze: %q, want …%s…", r.Text, want)
	}
}
