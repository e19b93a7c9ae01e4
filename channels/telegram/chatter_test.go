package telegram

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestGroupChatterIsNotACommand: in a group, talk that starts with a verb
// ("pending …", "answer …", "!answer …") gets no reply and records
// nothing; a verb without a slash counts in a reply to the question
// message and in a private chat; /commands (also /cmd@bot) work as ever.
func TestGroupChatterIsNotACommand(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(dbRequest(), team)

	var silent []int
	for _, text := range []string{
		"pending approval from legal, back soon",
		"answer me this: who ate the cake?",
		"Answer " + q.ID + " 2",
		"!answer " + q.ID + " 2",
		"pending",
	} {
		silent = append(silent, e.fake.Send(ana, team.ID, text, 0))
	}
	// Updates are handled in order: once the bot has answered this
	// command, it has seen (and ignored) all the chatter before it.
	probe := e.fake.Send(ana, team.ID, "/pending@askbridge_bot", 0)
	if r := e.waitReply(team.ID, probe); !strings.Contains(r.Text, q.ID) {
		t.Fatalf("/pending@bot reply %q, want the open question listed", r.Text)
	}
	for _, bm := range e.fake.BotMessages(team.ID) {
		for _, id := range silent {
			if bm.ReplyTo == id {
				t.Errorf("the bot replied %q to chatter message %d", bm.Text, id)
			}
		}
	}
	if got := e.get(q.ID); got.Status != broker.StatusPending {
		t.Fatalf("chatter changed the question to %s", got.Status)
	}

	mine := e.fake.Send(ana, team.ID, "answer "+q.ID+" 2", m.ID)
	if r := e.waitReply(team.ID, mine); r.Text != "Recorded: SQLite" {
		t.Fatalf("a verb without slash in reply to the question: reply %q, want Recorded: SQLite", r.Text)
	}
	if got := e.waitResolved(q.ID); got.Answers[q.Prompts[0].Question].Selected[0] != "SQLite" {
		t.Fatalf("answer %+v", got.Answers)
	}
}

// TestPrivateVerbWithoutSlash: in a private chat "pending" still lists.
func TestPrivateVerbWithoutSlash(t *testing.T) {
	e := newEnv(t, envOptions{})
	req := dbRequest()
	req.Route = "dm"
	q, _ := e.ask(req, anaDM)
	mine := e.fake.Send(ana, anaDM.ID, "pending", 0)
	if r := e.waitReply(anaDM.ID, mine); !strings.Contains(r.Text, q.ID) {
		t.Fatalf("reply %q, want the open question listed", r.Text)
	}
}
