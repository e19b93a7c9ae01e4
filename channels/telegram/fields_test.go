package telegram

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestTypedFieldWrongThenRight asks a typed prompt in a group: the
// message says what it takes; a reply out of range is refused with the
// rule and records nothing; the typed command with a right value is
// recorded, and the agent gets it typed.
func TestTypedFieldWrongThenRight(t *testing.T) {
	e := newEnv(t, envOptions{})
	lo, hi := 1024.0, 65535.0
	q, m := e.ask(&broker.AskRequest{Question: "Which port should the service listen on?", Header: "Port",
		Field: &broker.Field{Name: "port", Type: broker.FieldInteger, Title: "Port", Minimum: &lo, Maximum: &hi}}, team)
	if !strings.Contains(m.Text, "Which port should the service listen on?\nReply with a whole number from 1024 to 65535\n") {
		t.Errorf("the message does not say what the prompt takes:\n%s", m.Text)
	}
	wrong := e.fake.Send(ana, team.ID, "80", m.ID)
	if r := e.waitReply(team.ID, wrong); r.Text != "Port must be a whole number from 1024 to 65535; nothing was recorded." {
		t.Fatalf("reply to 80: %q", r.Text)
	}
	if got := e.get(q.ID); got.Status != broker.StatusPending || len(got.Answers) != 0 {
		t.Fatalf("a refused answer changed the question: %s %v", got.Status, got.Answers)
	}
	right := e.fake.Send(ana, team.ID, "/answer "+q.ID+" 8080", 0)
	if r := e.waitReply(team.ID, right); r.Text != "Recorded: “8080”" {
		t.Fatalf("reply to /answer %s 8080: %q", q.ID, r.Text)
	}
	done := e.waitResolved(q.ID)
	if a := done.Answers[q.Prompts[0].Question]; a.Value.String() != "8080" || a.AnsweredBy == nil {
		t.Fatalf("the agent got %+v, want the value 8080 from ana", a)
	}
}
