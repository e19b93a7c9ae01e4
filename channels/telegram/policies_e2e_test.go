package telegram

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
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

// Two people tapping Allow resolve the question with both as voters; the
// same person tapping twice is told so and changes nothing.
func TestQuorumThroughButtons(t *testing.T) {
	e := newEnv(t, envOptions{people: true})
	q, m := e.ask(deployRequest(), team)
	allow := buttons(m)["1. Allow"]
	if allow != stepData(broker.StepOption, q.Ref(0), 0) {
		t.Fatalf("buttons %v, want 1. Allow answering option 1", buttons(m))
	}
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, allow)); !strings.HasPrefix(got.Text, "Recorded your vote: Allow (1 of 2: Allow by") {
		t.Fatalf("Ana's first tap: toast %q, want her vote recorded, 1 of 2", got.Text)
	}
	e.waitMessage(team.ID, m.ID, "shows the vote", func(m telegramfake.Message) bool { return strings.Contains(m.Text, "1 of 2: Allow by") })
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, allow)); got.Text != "You already chose Allow on "+q.ID+"; nothing changed." {
		t.Fatalf("Ana's second tap: toast %q, want the refusal", got.Text)
	}
	if st := e.get(q.ID); st.Status != broker.StatusPending || len(st.State.Votes) != 1 {
		t.Fatalf("after Ana's second tap: %s with %d votes, want pending with one", st.Status, len(st.State.Votes))
	}
	if got := e.waitCallback(e.fake.Tap(bob, team.ID, m.ID, allow)); !strings.Contains(got.Text, "The quorum is reached") {
		t.Fatalf("Bob's tap: toast %q, want the quorum reached", got.Text)
	}
	done := e.waitResolved(q.ID)
	voters := done.Result().Voters
	if done.Status != broker.StatusAnswered || len(voters) != 2 || voters[0].User != "42" || voters[1].User != "43" {
		t.Fatalf("result: %s by %+v, want answered with Ana and Bob as voters", done.Status, voters)
	}
}

// The Snooze button and the typed /snooze go through the same command
// path: the first moves the deadline by 30 minutes, the second is refused
// (one snooze allowed) and changes nothing.
func TestSnoozeButtonAndTypedCommand(t *testing.T) {
	e := newEnv(t, envOptions{people: true})
	q, m := e.ask(deployRequest(), team)
	snooze := buttons(m)["⏰ Snooze"]
	if snooze != stepData(broker.StepSnooze, q.Ref(0)) {
		t.Fatalf("buttons %v, want a Snooze button", buttons(m))
	}
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, snooze)); !strings.HasPrefix(got.Text, "Snoozed: "+q.ID+" now expires at ") {
		t.Fatalf("Snooze tap: toast %q, want the new deadline", got.Text)
	}
	moved := e.get(q.ID)
	if !moved.ExpiresAt.Equal(q.ExpiresAt.Add(30 * time.Minute)) {
		t.Fatalf("expires_at %v, want %v", moved.ExpiresAt, q.ExpiresAt.Add(30*time.Minute))
	}
	e.waitMessage(team.ID, m.ID, "shows who snoozed", func(m telegramfake.Message) bool { return strings.Contains(m.Text, "snoozed by") })
	mine := e.fake.Send(bob, team.ID, "/snooze "+q.ID, 0)
	if r := e.waitReply(team.ID, mine); !strings.Contains(r.Text, "was already snoozed 1 of 1 times") {
		t.Fatalf("typed /snooze beyond max: reply %q, want the refusal", r.Text)
	}
	if st := e.get(q.ID); !st.ExpiresAt.Equal(moved.ExpiresAt) || len(st.State.Snoozes) != 1 {
		t.Fatalf("after the refused snooze: expires %v with %d snoozes, want unchanged", st.ExpiresAt, len(st.State.Snoozes))
	}
}

// A typed /snooze moves the deadline too.
func TestSnoozeTyped(t *testing.T) {
	e := newEnv(t, envOptions{people: true})
	q, _ := e.ask(deployRequest(), team)
	mine := e.fake.Send(bob, team.ID, "/snooze "+q.ID, 0)
	if r := e.waitReply(team.ID, mine); !strings.HasPrefix(r.Text, "Snoozed: "+q.ID+" now expires at ") {
		t.Fatalf("typed /snooze: reply %q, want the new deadline", r.Text)
	}
	if st := e.get(q.ID); !st.ExpiresAt.Equal(q.ExpiresAt.Add(30 * time.Minute)) {
		t.Fatalf("expires_at %v, want %v", st.ExpiresAt, q.ExpiresAt.Add(30*time.Minute))
	}
}
