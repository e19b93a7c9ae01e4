package telegram

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// prodRoute is a route with team policies: two of Ana and Bob must
// approve, and a question may be snoozed once by 30 minutes.
var prodRoute = broker.Route{
	Targets:    []broker.Target{{Channel: Name, Chat: chatID(team)}},
	Responders: []string{"42", "43"},
	Policy:     broker.Policy{Quorum: 2, Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 1}},
}

func deployRequest() *broker.AskRequest {
	return &broker.AskRequest{Route: "prod", Question: "Deploy 412?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}}
}

// A typed /snooze moves the deadline; typed again beyond the route's one
// snooze, it is refused and changes nothing. The Snooze button's round
// trip is a case of the channel suite (channeltest).
func TestSnoozeTyped(t *testing.T) {
	e := newEnv(t, envOptions{people: true})
	q, _ := e.ask(deployRequest(), team)
	mine := e.fake.Send(bob, team.ID, "/snooze "+q.ID, 0)
	if r := e.waitReply(team.ID, mine); !strings.HasPrefix(r.Text, "Snoozed: "+q.ID+" now expires at ") {
		t.Fatalf("typed /snooze: reply %q, want the new deadline", r.Text)
	}
	moved := e.get(q.ID)
	if !moved.ExpiresAt.Equal(q.ExpiresAt.Add(30 * time.Minute)) {
		t.Fatalf("expires_at %v, want %v", moved.ExpiresAt, q.ExpiresAt.Add(30*time.Minute))
	}
	again := e.fake.Send(ana, team.ID, "/snooze "+q.ID, 0)
	if r := e.waitReply(team.ID, again); !strings.Contains(r.Text, "was already snoozed 1 of 1 times") {
		t.Fatalf("typed /snooze beyond max: reply %q, want the refusal", r.Text)
	}
	if st := e.get(q.ID); !st.ExpiresAt.Equal(moved.ExpiresAt) || len(st.State.Snoozes) != 1 {
		t.Fatalf("after the refused snooze: expires %v with %d snoozes, want unchanged", st.ExpiresAt, len(st.State.Snoozes))
	}
}
