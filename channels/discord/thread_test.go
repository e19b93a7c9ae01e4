package discord

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// TestPostInThread: an agent's reply is a reply to the question's
// message, escaped and mentioning nobody; a reply longer than one
// message goes as several, in order, each within Discord's limit, which
// read back as the whole text.
func TestPostInThread(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	q := question("k7m2qx", dbPrompt())
	_, ref := e.post(t, q)
	if err := e.ch.PostInThread(testCtx(t), q, ref, "Use **bold** @everyone <#1>"); err != nil {
		t.Fatal(err)
	}
	msgs := e.fake.Messages(e.chat)
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want the question and the reply", len(msgs))
	}
	r := msgs[1]
	if r.Reference == nil || r.Reference.MessageID != ref.MessageID || r.Content != escape("Use **bold** @everyone <#1>") {
		t.Fatalf("reply %q referencing %+v", r.Content, r.Reference)
	}
	assertNoMentions(t, r)

	long := strings.Repeat("line of text_with*marks\n", 160) // 3840 characters, more once escaped
	if err := e.ch.PostInThread(testCtx(t), q, ref, long); err != nil {
		t.Fatal(err)
	}
	parts := e.fake.Messages(e.chat)[2:]
	if len(parts) < 2 {
		t.Fatalf("%d messages for a reply of %d escaped characters, want several", len(parts), utf8.RuneCountInString(escape(long)))
	}
	var whole strings.Builder
	for _, p := range parts {
		if units(p.Content) > maxContent || p.Reference == nil || p.Reference.MessageID != ref.MessageID {
			t.Fatalf("part of %d units referencing %+v", units(p.Content), p.Reference)
		}
		whole.WriteString(p.Content)
	}
	if whole.String() != escape(long) {
		t.Fatalf("the parts do not read back as the reply")
	}
	if !strings.HasSuffix(parts[0].Content, "\n") {
		t.Errorf("the first part ends mid-line: %q", parts[0].Content[len(parts[0].Content)-20:])
	}
	if err := e.ch.PostInThread(testCtx(t), q, broker.MessageRef{Channel: Name, Chat: e.chat}, "hi"); !errors.Is(err, broker.ErrPermanent) {
		t.Fatalf("a copy naming no message: %v, want a permanent failure", err)
	}
}

// TestEscapedParts: splitting never cuts an escape, and keeps every
// part within the limit.
func TestEscapedParts(t *testing.T) {
	for _, tc := range []struct {
		s   string
		max int
	}{{"abc", 10}, {"a*b*c*d*e", 4}, {"ab\ncd\nef", 4}, {"🙂🙂🙂", 4}, {strings.Repeat("_", 9), 5}} {
		parts := escapedParts(tc.s, tc.max)
		if strings.Join(parts, "") != escape(tc.s) {
			t.Errorf("%q in %d: %q do not read back as %q", tc.s, tc.max, parts, escape(tc.s))
		}
		for _, p := range parts {
			if units(p) > tc.max || strings.HasSuffix(p, `\`) {
				t.Errorf("%q in %d: part %q", tc.s, tc.max, p)
			}
		}
	}
}

// TestConversationOnDiscord: once a conversation question on the gated
// route has ended, a reply to its message from the route's responder
// reaches the agent's session and is acknowledged; one from a person not
// on the route is refused and reaches nothing; the agent's reply goes
// back as a reply to the question's message.
func TestConversationOnDiscord(t *testing.T) {
	w := newWorld(t, nil)
	ctx := testCtx(t)
	a := w.ask(t, &broker.AskRequest{SessionID: "s1", Route: "gated", Conversation: true, Question: "Claude Code asks: allow Bash?",
		Options: []broker.Option{{Label: "Allow once"}, {Label: "Deny"}}})
	w.fake.Say(w.ana, w.gated, "1", a.msg.ID)
	if q := a.done(t); q.Status != broker.StatusAnswered {
		t.Fatalf("the question is %s, want answered", q.Status)
	}
	_, cursor, err := w.b.SessionMessages(ctx, "agent", "s1", -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	answerTo := func(said string) string {
		t.Helper()
		var got string
		if err := discordfake.Until(ctx, func() bool {
			for _, m := range w.fake.Messages(w.gated) {
				if m.Author.Bot && m.Reference != nil && m.Reference.MessageID == said {
					got = m.Content
					return true
				}
			}
			return false
		}); err != nil {
			t.Fatalf("message %s was not answered", said)
		}
		return got
	}
	if got := answerTo(w.fake.Say(w.bo, w.gated, "deploy anyway", a.msg.ID)); !strings.Contains(got, "not one of the people asked to answer") {
		t.Fatalf("Bo's reply was answered %q, want the usual refusal", got)
	}
	if got := answerTo(w.fake.Say(w.ana, w.gated, "why not staging?", a.msg.ID)); got != escape(broker.SentToSession) {
		t.Fatalf("Ana's reply was answered %q", got)
	}
	msgs, _, err := w.b.SessionMessages(ctx, "agent", "s1", cursor, 0)
	if err != nil || len(msgs) != 1 || msgs[0].Text != "why not staging?" || msgs[0].By.User != w.ana.ID || msgs[0].Copy.MessageID != a.msg.ID {
		t.Fatalf("the session got %+v, %v; want Ana's words alone, on the question's message", msgs, err)
	}
	if _, err := w.b.ReplyInSession(ctx, "agent", "s1", 0, "Staging is down today."); err != nil {
		t.Fatal(err)
	}
	if err := discordfake.Until(ctx, func() bool {
		for _, m := range w.fake.Messages(w.gated) {
			if m.Author.Bot && m.Reference != nil && m.Reference.MessageID == a.msg.ID && m.Content == escape("Staging is down today.") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the agent's reply is not a reply to the question's message")
	}
}
