package discord

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// TestTypedFieldWrongThenRight asks a typed prompt in a channel: the
// message says what it takes; a reply out of range is refused with the
// rule and records nothing; the answer command with a right value is
// recorded, and the agent gets it typed.
func TestTypedFieldWrongThenRight(t *testing.T) {
	w := newWorld(t, nil)
	lo, hi := 0.0, 1.0
	a := w.ask(t, &broker.AskRequest{Question: "Which share of traffic goes to the canary?",
		Field: &broker.Field{Name: "share", Type: broker.FieldNumber, Title: "Share", Minimum: &lo, Maximum: &hi}})
	if want := "_" + escape("Reply with a number from 0 to 1") + "._"; !strings.Contains(a.msg.Content, want) {
		t.Errorf("the message does not say what the prompt takes (%q):\n%s", want, a.msg.Content)
	}
	said := w.fake.Say(w.ana, w.chat, "1.5", a.msg.ID)
	refusal := escape("Share must be a number from 0 to 1; nothing was recorded.")
	err := discordfake.Until(testCtx(t), func() bool {
		for _, m := range w.fake.Messages(w.chat) {
			if m.Author.Bot && m.Reference != nil && m.Reference.MessageID == said {
				return strings.Contains(m.Content, refusal)
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the reply 1.5 was not refused with %q", refusal)
	}
	if s := w.status(t, a.q.ID); s != broker.StatusPending {
		t.Fatalf("a refused answer made the question %s", s)
	}
	id := w.fake.Command(w.ana, w.chat, "answer", "id", a.q.ID, "choice", "0.25")
	q := a.done(t)
	if v := q.Answers[q.Prompts[0].Question].Value.String(); v != "0.25" {
		t.Errorf("the agent got the value %s, want 0.25", v)
	}
	if r, _ := w.fake.WaitResponse(testCtx(t), id); !r.Ephemeral() || r.Content() != escape("Recorded: “0.25”") {
		t.Errorf("the command was answered %s", r.Raw)
	}
	w.edited(t, a.msg.ID, "Answered by ana")
}
