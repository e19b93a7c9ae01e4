package channeltest

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

func deployQuestion(route string) *broker.AskRequest {
	return &broker.AskRequest{Question: "Deploy 412?", Route: route, Options: []broker.Option{{Label: "Allow"}, {Label: "Deny"}}}
}

// quorum: on a route where two people must agree, the first Allow is
// recorded as a vote and the copy shows "1 of 2" with who voted; the
// same person voting again is told so and changes nothing; the second
// person's Allow answers the question with both as voters, and the copy
// shows the outcome.
func quorum(t *testing.T, s *session) {
	q := s.Ask(deployQuestion("prod"))
	m := s.posted(t, s.chats[0], q)
	ana, bob := s.p, s.p.As(1)

	votes := "1 of 2: Allow by " + s.names[0]
	if told := tap(t, ana, s.chats[0], m, "Allow"); !strings.Contains(told.Text, votes) {
		t.Errorf("the first vote tells %q, want %q", told.Text, votes)
	}
	s.shows(t, s.chats[0], m.ID, votes)

	told := tap(t, ana, s.chats[0], m, "Allow")
	if want := "You already chose Allow on " + q.ID + "; nothing changed."; !strings.Contains(told.Text, want) || !told.Private {
		t.Errorf("a second vote by the same person tells %+v, want %q for them alone", told, want)
	}
	if got := s.Question(q.ID); got.Status != broker.StatusPending || len(got.State.Votes) != 1 {
		t.Fatalf("after the same person's second vote the question is %s with %d votes, want pending with one", got.Status, len(got.State.Votes))
	}

	// Told privately, the voter learns the quorum is reached; else the
	// copy they see is the outcome.
	told = tap(t, bob, s.chats[0], m, "Allow")
	if told.Private && !strings.Contains(told.Text, "The quorum is reached") || !told.Private && !strings.Contains(told.Text, "Answered by ") {
		t.Errorf("the second person's vote tells %+v, want that the quorum is reached", told)
	}
	got := s.resolved(t, q.ID, "Allow")
	voters := got.Result().Voters
	if len(voters) != 2 || voters[0].User != s.people[0].ID || voters[1].User != s.people[1].ID {
		t.Errorf("answered by the voters %+v, want %s then %s", voters, s.people[0].ID, s.people[1].ID)
	}
	s.edited(t, s.chats[0], m.ID, "Allow")
}

// snooze: the Snooze button moves the deadline by the route's snooze and
// the copy shows the new deadline and who snoozed; a snooze beyond the
// route's one is refused and changes nothing.
func snooze(t *testing.T, s *session) {
	q := s.Ask(deployQuestion("snooze"))
	m := s.posted(t, s.chats[0], q)
	loc := s.Broker.Location()

	told := tap(t, s.p, s.chats[0], m, "Snooze")
	moved := s.Question(q.ID)
	if !moved.ExpiresAt.Equal(q.ExpiresAt.Add(snoozeBy)) || len(moved.State.Snoozes) != 1 || moved.State.Snoozes[0].By.User != s.people[0].ID {
		t.Fatalf("after the Snooze button the question expires %v after %+v, want %v after one snooze by %s",
			moved.ExpiresAt, moved.State.Snoozes, q.ExpiresAt.Add(snoozeBy), s.people[0].ID)
	}
	// Told privately, the person reads the snooze; else the copy they
	// see shows it.
	deadline := moved.ExpiresAt.In(loc).Format("15:04 MST")
	if told.Private && !strings.Contains(told.Text, "Snoozed: "+q.ID+" now expires at ") || !strings.Contains(told.Text, deadline) {
		t.Errorf("the Snooze button tells %+v, want the new deadline %s", told, deadline)
	}
	shown := s.shows(t, s.chats[0], m.ID, "snoozed by "+s.names[0])
	if !strings.Contains(shown.Text, deadline) {
		t.Errorf("the snoozed copy reads:\n%s\nwant the new deadline %s", shown.Text, deadline)
	}

	told = tap(t, s.p.As(1), s.chats[0], m, "Snooze")
	if want := q.ID + " was already snoozed 1 of 1 times"; !strings.Contains(told.Text, want) || !told.Private {
		t.Errorf("a second snooze tells %+v, want %q for them alone", told, want)
	}
	if got := s.Question(q.ID); !got.ExpiresAt.Equal(moved.ExpiresAt) || len(got.State.Snoozes) != 1 {
		t.Errorf("after the refused snooze the question expires %v after %d snoozes, want %v after 1", got.ExpiresAt, len(got.State.Snoozes), moved.ExpiresAt)
	}
}
