package brokertest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var listTests = []storeTest{
	{"Filters", testList},
	{"SessionIDOfTwoAgents", testListSessionOfTwoAgents},
}

// testListSessionOfTwoAgents: session ids are the agents' own, so two
// agents may use one; cancelling one agent's session leaves the other's
// questions pending, and each agent lists its own.
func testListSessionOfTwoAgents(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	ids := newIDs(4)
	for i, a := range []string{"a1", "a2", "a1", "a2"} {
		q := NewQuestion(ids[i], a, now.Add(time.Duration(i)*time.Second))
		q.SessionID = "s1"
		mustCreate(t, s, q)
	}
	for _, c := range []struct {
		agent string
		want  []string
	}{{"a1", []string{ids[2], ids[0]}}, {"a2", []string{ids[3], ids[1]}}} {
		got, err := s.List(ctx, broker.Filter{Agent: c.agent, SessionID: "s1", Status: broker.StatusPending})
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		wantIDs(t, "pending questions of "+c.agent+"'s session s1", questionIDs(got), c.want)
	}
	b, err := broker.New(broker.Config{Store: s, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cancelled, err := b.CancelSession(ctx, "a1", "s1", "")
	if err != nil {
		t.Fatalf("CancelSession: %v", err)
	}
	wantSet(t, "questions cancelled with a1's session s1", questionIDs(cancelled), []string{ids[0], ids[2]})
	for _, id := range []string{ids[1], ids[3]} {
		if q := mustGet(t, s, id); q.Status != broker.StatusPending {
			t.Fatalf("a2's question %s of its session s1 is %s after a1 cancelled its own, want pending", id, q.Status)
		}
	}
	left, err := s.List(ctx, broker.Filter{Agent: "a2", SessionID: "s1", Status: broker.StatusPending})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	wantIDs(t, "a2's pending questions of session s1", questionIDs(left), []string{ids[3], ids[1]})
}

func testList(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	q := newIDs(6)
	setup := []struct {
		agent, session string
		status         broker.Status
		posted         []broker.Target
	}{
		{"a1", "s1", broker.StatusPending, []broker.Target{{Channel: "telegram", Chat: "100"}}},
		{"a1", "s1", broker.StatusAnswered, []broker.Target{{Channel: "telegram", Chat: "100"}, {Channel: "slack", Chat: "C1"}}},
		{"a1", "s2", broker.StatusPending, []broker.Target{{Channel: "slack", Chat: "C1"}}},
		{"a2", "s1", broker.StatusPending, []broker.Target{{Channel: "telegram", Chat: "200"}}},
		{"a2", "s3", broker.StatusCancelled, nil},
		{"a1", "s1", broker.StatusPending, []broker.Target{{Channel: "telegram", Chat: "100"}, {Channel: "telegram", Chat: "200"}}},
	}
	for i, st := range setup {
		nq := NewQuestion(q[i], st.agent, now.Add(time.Duration(i)*time.Second))
		nq.SessionID = st.session
		nq.Targets = st.posted
		mustCreate(t, s, nq)
		for j, tg := range st.posted {
			m := broker.MessageRef{Channel: tg.Channel, Chat: tg.Chat, MessageID: q[i] + "-" + string(rune('a'+j)), PostedAt: nq.CreatedAt}
			if err := s.AddMessage(ctx, q[i], m); err != nil {
				t.Fatalf("AddMessage: %v", err)
			}
		}
		if st.status != broker.StatusPending {
			mustResolve(t, s, q[i], broker.Resolution{Status: st.status, ResolvedAt: nq.CreatedAt.Add(time.Minute)})
		}
	}
	cases := []struct {
		name string
		f    broker.Filter
		want []string
	}{
		{"All", broker.Filter{}, []string{q[5], q[4], q[3], q[2], q[1], q[0]}},
		{"Agent", broker.Filter{Agent: "a1"}, []string{q[5], q[2], q[1], q[0]}},
		{"Session", broker.Filter{SessionID: "s1"}, []string{q[5], q[3], q[1], q[0]}},
		{"AgentSession", broker.Filter{Agent: "a1", SessionID: "s1"}, []string{q[5], q[1], q[0]}},
		{"Pending", broker.Filter{Status: broker.StatusPending}, []string{q[5], q[3], q[2], q[0]}},
		{"Answered", broker.Filter{Status: broker.StatusAnswered}, []string{q[1]}},
		{"AgentPending", broker.Filter{Agent: "a1", Status: broker.StatusPending}, []string{q[5], q[2], q[0]}},
		{"Chat", broker.Filter{Channel: "telegram", Chat: "100"}, []string{q[5], q[1], q[0]}},
		{"ChatPending", broker.Filter{Channel: "telegram", Chat: "100", Status: broker.StatusPending}, []string{q[5], q[0]}},
		{"ChannelOnlyNoDuplicates", broker.Filter{Channel: "telegram"}, []string{q[5], q[3], q[1], q[0]}},
		{"OtherChannelSameChat", broker.Filter{Channel: "slack", Chat: "C1"}, []string{q[2], q[1]}},
		{"Limit", broker.Filter{Limit: 2}, []string{q[5], q[4]}},
		{"AgentLimit", broker.Filter{Agent: "a1", Limit: 3}, []string{q[5], q[2], q[1]}},
		{"ChatLimit", broker.Filter{Channel: "telegram", Chat: "100", Limit: 1}, []string{q[5]}},
		{"UnknownAgent", broker.Filter{Agent: "nobody"}, nil},
		{"UnknownChat", broker.Filter{Channel: "discord", Chat: "100"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.List(ctx, c.f)
			if err != nil {
				t.Fatalf("List(%+v): %v", c.f, err)
			}
			wantIDs(t, "List ids (newest first)", questionIDs(got), c.want)
			for _, g := range got {
				sameQuestion(t, "listed question", g, mustGet(t, s, g.ID))
			}
		})
	}
}
