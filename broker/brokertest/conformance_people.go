package brokertest

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
)

// peopleTests check that a quorum counts people, not accounts, on the
// store's compare-and-set: one person acting from two accounts through
// two brokers (two bridge instances) at the same instant counts once.
var peopleTests = []storeTest{
	{"OnePersonTwoInstancesOneVote", testOnePersonTwoInstances},
}

func testOnePersonTwoInstances(t *testing.T, s broker.Store) {
	ctx := context.Background()
	people, err := broker.NewPeople([]broker.Person{
		{ID: "ana", Name: "Ana", Accounts: []string{"slack:U2", "telegram:42"}},
		{ID: "bo", Name: "Bo", Accounts: []string{"slack:U3"}},
	}, map[string][]string{"sre": {"ana", "bo"}})
	if err != nil {
		t.Fatal(err)
	}
	routes := map[string]broker.Route{broker.DefaultRoute: {
		Targets:    []broker.Target{{Channel: "slack", Chat: "C1"}, {Channel: "telegram", Chat: "-100"}},
		Responders: []string{"group:sre"},
		Policy:     broker.Policy{Quorum: 2},
	}}
	newInstance := func() *broker.Broker {
		b, err := broker.New(broker.Config{Store: s, Routes: routes, People: people, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		outbox.Attach(b, s, outbox.Config{})
		b.Register(NewChannel("slack"))
		b.Register(NewChannel("telegram"))
		return b
	}
	one, two := newInstance(), newInstance()
	for round := range 6 {
		q, _, err := one.Ask(ctx, "agent", &broker.AskRequest{SessionID: "s", ToolCallID: string(rune('a' + round)),
			Question: "Deploy 412?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		start := make(chan struct{})
		replies := make([]broker.Reply, 2)
		for k, in := range []broker.Inbound{
			{Channel: "slack", Chat: "C1", User: "U2", Name: "ana.lima", Text: "/answer " + q.ID + " 1"},
			{Channel: "telegram", Chat: "-100", User: "42", Name: "Ana", Text: "/answer " + q.ID + " 1"},
		} {
			b := []*broker.Broker{one, two}[k]
			wg.Go(func() {
				<-start
				replies[k] = b.HandleInbound(ctx, in)
			})
		}
		close(start)
		wg.Wait()
		got, err := s.Get(ctx, q.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != broker.StatusPending || len(got.State.Votes) != 1 {
			t.Fatalf("round %d: Ana voted from Slack and Telegram on two instances at once: %s with %d votes (replies %q, %q), want pending with one",
				round, got.Status, len(got.State.Votes), replies[0].Text, replies[1].Text)
		}
		if v := got.State.Votes[0]; v.By.Person == nil || v.By.Person.ID != "ana" {
			t.Fatalf("round %d: the vote is by %+v, want person ana", round, v.By)
		}
		if ok := replies[0].OK != replies[1].OK; !ok {
			t.Fatalf("round %d: replies %+v and %+v: want one recorded and one refused as already chosen", round, replies[0], replies[1])
		}
		r := two.HandleInbound(ctx, broker.Inbound{Channel: "slack", Chat: "C1", User: "U3", Name: "bo", Text: "/answer " + q.ID + " 1"})
		if !r.OK || r.Question.Status != broker.StatusAnswered {
			t.Fatalf("round %d: Bo's vote: %+v, want the quorum reached", round, r)
		}
		voters := r.Question.Result().Voters
		if len(voters) != 2 || voters[0].Person.ID != "ana" || voters[1].Person.ID != "bo" {
			t.Fatalf("round %d: voters %+v, want Ana and Bo", round, voters)
		}
	}
}
