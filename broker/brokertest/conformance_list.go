package brokertest

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var listTests = []storeTest{
	{"Filters", testList},
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
