package telegram

import (
	"strconv"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// TestConversationOnTelegram: once a conversation question has ended, a
// responder's reply to its message reaches the agent's session and is
// acknowledged in the chat; a reply from someone not on the route is
// refused and reaches nothing; the agent's reply goes back as a reply to
// the question's message, escaped.
func TestConversationOnTelegram(t *testing.T) {
	e := newEnv(t, envOptions{responders: []string{"telegram:42"}})
	q, msg := e.ask(&broker.AskRequest{SessionID: "s1", Conversation: true, Question: "Claude Code asks: allow Bash?",
		Options: []broker.Option{{Label: "Allow once"}, {Label: "Deny"}}}, team)
	if r := e.b.HandleInbound(e.ctx, broker.Inbound{Channel: Name, Chat: chatID(team), User: "42", Text: "/answer " + q.ID + " 1"}); !r.OK {
		t.Fatalf("answer: %+v", r)
	}
	_, cursor, err := e.b.SessionMessages(e.ctx, "agent", "s1", -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	said := func(from telegramfake.User, text string) telegramfake.Message {
		t.Helper()
		id := e.fake.Send(from, team.ID, text, msg.ID)
		var reply telegramfake.Message
		if !e.fake.WaitFor(waitLimit, func() bool {
			for _, m := range e.fake.BotMessages(team.ID) {
				if m.ReplyTo == id {
					reply = m
					return true
				}
			}
			return false
		}) {
			t.Fatalf("no answer to %s's %q", from.FirstName, text)
		}
		return reply
	}
	if r := said(bob, "run it again"); !strings.HasPrefix(r.Text, "You are not one of the people asked to answer") {
		t.Fatalf("Bob's reply answered %q, want the usual refusal", r.Text)
	}
	if r := said(ana, "why <that> & not make?"); r.Text != broker.SentToSession {
		t.Fatalf("Ana's reply answered %q", r.Text)
	}
	msgs, _, err := e.b.SessionMessages(e.ctx, "agent", "s1", cursor, 0)
	if err != nil || len(msgs) != 1 || msgs[0].Text != "why <that> & not make?" || msgs[0].By.User != "42" || msgs[0].Copy.MessageID != strconv.Itoa(msg.ID) {
		t.Fatalf("the session got %+v, %v; want Ana's words only, on the question's message", msgs, err)
	}
	if _, err := e.b.ReplyInSession(e.ctx, "agent", "s1", 0, "Because <make> & the CI differ."); err != nil {
		t.Fatal(err)
	}
	if !e.fake.WaitFor(waitLimit, func() bool {
		for _, m := range e.fake.BotMessages(team.ID) {
			if m.ReplyTo == msg.ID && m.Text == "Because <make> & the CI differ." && strings.Contains(m.HTML, "&lt;make&gt; &amp;") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("the agent's reply is not a reply to the question's message: %+v", e.fake.BotMessages(team.ID))
	}
}
