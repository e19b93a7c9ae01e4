package slack

import (
	"context"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// TestTypedFieldWrongThenRight asks a typed prompt in a channel: the
// message says what it takes; a date that is none, typed in the thread,
// is refused with the rule and records nothing; /answer with a date is
// recorded, and the agent gets it typed.
func TestTypedFieldWrongThenRight(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{})
	q, m := e.ask(t, &broker.AskRequest{Question: "When do we start?", Header: "Start",
		Field: &broker.Field{Name: "start", Type: broker.FieldString, Title: "Start date", Format: broker.FormatDate}})
	got := e.wait(q.ID)
	if texts := strings.Join(textObjects(t, m.Blocks, "mrkdwn"), "\n"); !strings.Contains(texts, "_Reply with a date such as 2026-12-03_") {
		t.Errorf("the blocks do not say what the prompt takes:\n%s", texts)
	}
	e.send(t, "events_api", slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "next monday", ThreadTS: m.TS}))
	waitEphemeral(t, e.fake, ana.ID, "Start date must be a date such as 2026-12-03; nothing was recorded.")
	e.ch.drain()
	if cur, err := e.b.Get(context.Background(), "agent", q.ID); err != nil || cur.Status != broker.StatusPending || len(cur.Answers) != 0 {
		t.Fatalf("a refused answer changed the question: %v %v", cur.Status, err)
	}
	e.send(t, "slash_commands", slackfake.SlashPayload(slackfake.SlashCommand(ana, general, "general", "/answer", q.ID+" 2026-12-03")))
	waitEphemeral(t, e.fake, ana.ID, "Recorded: “2026-12-03”")
	done := <-got
	if done == nil || done.Answers[q.Prompts[0].Question].Value.String() != `"2026-12-03"` {
		t.Fatalf("the agent got %+v, want the date typed", done)
	}
	e.copyShows(t, m, "2026-12-03")
}
