package slack

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// On a route with a quorum of two and one snooze, Ana snoozes by button,
// votes Allow, votes Allow again (refused), and Bob's Allow resolves the
// question with both as voters.
func TestEndToEndQuorumAndSnooze(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{
		Targets:    []broker.Target{{Channel: "slack", Chat: general}},
		Responders: []string{"slack:" + ana.ID, "slack:" + bob.ID},
		Policy:     broker.Policy{Quorum: 2, Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 1}},
	})
	q, m := e.ask(t, &broker.AskRequest{Question: "Deploy 412?", Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}})
	get := func() *broker.Question {
		t.Helper()
		g, err := e.b.Get(context.Background(), "agent", q.ID)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}

	e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "Snooze")))
	waitEphemeral(t, e.fake, ana.ID, "Snoozed: "+q.ID+" now expires at")
	if g := get(); !g.ExpiresAt.Equal(q.ExpiresAt.Add(30 * time.Minute)) {
		t.Fatalf("expires_at after the Snooze button = %v, want %v", g.ExpiresAt, q.ExpiresAt.Add(30*time.Minute))
	}

	e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "Allow")))
	waitEphemeral(t, e.fake, ana.ID, "Recorded your vote: Allow (1 of 2: Allow by")
	e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "Allow")))
	waitEphemeral(t, e.fake, ana.ID, "You already chose Allow on "+q.ID+"; nothing changed.")
	if g := get(); g.Status != broker.StatusPending || len(g.State.Votes) != 1 {
		t.Fatalf("after Ana's second vote: %s with %d votes, want pending with one", g.Status, len(g.State.Votes))
	}
	done := e.wait(q.ID)
	e.send(t, "interactive", slackfake.ClickButton(m, bob, e.button(t, m, "Allow")))
	var res *broker.Question
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the question was not resolved after Bob's vote")
	}
	voters := res.Result().Voters
	if res.Status != broker.StatusAnswered || len(voters) != 2 || voters[0].User != ana.ID || voters[1].User != bob.ID {
		t.Fatalf("result: %s by %+v, want answered with Ana and Bob as voters", res.Status, voters)
	}
}
