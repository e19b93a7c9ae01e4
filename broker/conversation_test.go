package broker_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/internal/testutil"
)

// threadChannel is a recording channel that also posts in threads.
type threadChannel struct {
	*brokertest.Channel
	mu     sync.Mutex
	posted []threadPost
	fail   error
}

type threadPost struct {
	question string
	copy     broker.MessageRef
	text     string
}

func (c *threadChannel) PostInThread(_ context.Context, q *broker.Question, m broker.MessageRef, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return c.fail
	}
	c.posted = append(c.posted, threadPost{q.ID, m, text})
	return nil
}

func (c *threadChannel) posts() []threadPost {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]threadPost(nil), c.posted...)
}

// talkEnv is a broker on a real SQLite file whose route "ops" posts to
// chats c1 and c2 of the threading channel "chat" and to chat x1 of
// "plain", a channel that cannot post replies; only Ana may answer.
type talkEnv struct {
	b     *broker.Broker
	st    broker.Store
	chat  *threadChannel
	clock *clock
	logs  *testutil.Buffer
}

func newTalkEnv(t *testing.T) *talkEnv {
	t.Helper()
	people := newPeople(t, []broker.Person{
		{ID: "ana", Name: "Ana Lima", Accounts: []string{"chat:ana", "plain:ana-x"}},
		{ID: "bo", Name: "Bo Chen", Accounts: []string{"chat:bo"}},
	}, nil)
	routes := map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}},
		"ops": {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "chat", Chat: "c2"}, {Channel: "plain", Chat: "x1"}},
			Responders: []string{"person:ana"}},
	}
	clk := brokertest.NewClock(time.Date(2026, 11, 29, 14, 0, 0, 0, time.UTC))
	logs := &testutil.Buffer{}
	chat := &threadChannel{Channel: brokertest.NewChannel("chat")}
	b, st := startBridge(t, broker.Config{Routes: routes, Now: clk.Now, People: people, Logger: slog.New(slog.NewTextHandler(logs, nil))},
		chat, brokertest.NewChannel("plain"))
	return &talkEnv{b: b, st: st, chat: chat, clock: clk, logs: logs}
}

// ask asks a conversation question (or, with conversation false, an
// ordinary one) on ops in session, as agent.
func (e *talkEnv) ask(t *testing.T, agent, session string, conversation bool) *broker.Question {
	t.Helper()
	q, _, err := e.b.Ask(context.Background(), agent, &broker.AskRequest{
		SessionID: session, Route: "ops", Conversation: conversation, Question: "Claude Code asks: allow Bash?\n$ make deploy",
		Options: []broker.Option{{Label: "Allow once"}, {Label: "Deny"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// copyIn returns q's posted copy in chat.
func (e *talkEnv) copyIn(t *testing.T, q *broker.Question, channel, chat string) broker.MessageRef {
	t.Helper()
	var found broker.MessageRef
	until(t, "the copy of "+q.ID+" in "+chat, func() bool {
		refs, err := e.st.Messages(context.Background(), q.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range refs {
			if m.Channel == channel && m.Chat == chat {
				found = m
				return true
			}
		}
		return false
	})
	return found
}

// until polls cond until it holds, failing after 10 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// inThread is text that user wrote replying to the copy m.
func inThread(m broker.MessageRef, user, text string) broker.Inbound {
	return broker.Inbound{Channel: m.Channel, Chat: m.Chat, User: user, Name: user, Text: text, ReplyTo: m.MessageID}
}

// listen polls the session once, as a channel server does when it
// starts, and returns its cursor.
func (e *talkEnv) listen(t *testing.T, agent, session string) int64 {
	t.Helper()
	msgs, next, err := e.b.SessionMessages(context.Background(), agent, session, -1, 0)
	if err != nil || len(msgs) != 0 {
		t.Fatalf("first poll: %+v, %v; want no message", msgs, err)
	}
	return next
}

// TestConversationMessageReachesTheSession: text on a conversation
// question answers it while it is pending; once it has ended, the
// responder's text in its thread is a message to the session, sent only
// while the session listens, with who wrote it and on which copy.
func TestConversationMessageReachesTheSession(t *testing.T) {
	e := newTalkEnv(t)
	ctx := context.Background()
	q := e.ask(t, "claude", "s1", true)
	if !q.Conversation || !q.Result().Conversation {
		t.Fatalf("question %+v is not a conversation", q.Result())
	}
	c2 := e.copyIn(t, q, "chat", "c2")
	// Pending: a note is an answer, as on any question.
	r := e.b.HandleInbound(ctx, inThread(c2, "ana", "build into a temp dir instead"))
	if !r.OK || r.Text != "Recorded: “build into a temp dir instead”" || r.Question.Status != broker.StatusAnswered {
		t.Fatalf("text on the pending question: %+v, want it recorded as the answer", r)
	}
	// Ended, nobody listening: nothing is sent.
	r = e.b.HandleInbound(ctx, inThread(c2, "ana", "why that command?"))
	if r.OK || r.Text != broker.SessionNotConnected || !errors.Is(r.Err, broker.ErrClosed) {
		t.Fatalf("text with no session listening: %+v", r)
	}
	if msgs, latest, err := e.st.SessionMessages(ctx, "claude", "s1", 0, e.clock.Now(), 0); err != nil || len(msgs) != 0 || latest != 0 {
		t.Fatalf("kept %+v (latest %d, %v) while nobody listened", msgs, latest, err)
	}
	cursor := e.listen(t, "claude", "s1")
	r = e.b.HandleInbound(ctx, inThread(c2, "ana", "why that command?"))
	if !r.OK || r.Text != broker.SentToSession {
		t.Fatalf("text while the session listens: %+v", r)
	}
	msgs, next, err := e.b.SessionMessages(ctx, "claude", "s1", cursor, 0)
	if err != nil || len(msgs) != 1 || next != msgs[0].Seq {
		t.Fatalf("SessionMessages = %+v, next %d, %v; want the message", msgs, next, err)
	}
	m := msgs[0]
	if m.Text != "why that command?" || m.From != broker.FromPerson || m.QuestionID != q.ID || m.By == nil || m.By.Person == nil ||
		m.By.Person.ID != "ana" || m.Copy.Chat != "c2" || m.Copy.MessageID != c2.MessageID {
		t.Fatalf("message %+v, want Ana's words on the copy in c2", m)
	}
	// A minute after the last poll the session counts as gone.
	e.clock.Add(broker.SessionListenWindow + time.Second)
	if r := e.b.HandleInbound(ctx, inThread(c2, "ana", "still there?")); r.Text != broker.SessionNotConnected {
		t.Fatalf("text a minute after the last poll: %+v", r)
	}
	// An ordinary question that ended answers as before.
	plain := e.ask(t, "claude", "s1", false)
	pc := e.copyIn(t, plain, "chat", "c1")
	e.b.HandleInbound(ctx, inThread(pc, "ana", "/answer "+plain.ID+" 2"))
	e.listen(t, "claude", "s1")
	if r := e.b.HandleInbound(ctx, inThread(pc, "ana", "one more thing")); r.OK || !errors.Is(r.Err, broker.ErrClosed) || !strings.HasPrefix(r.Text, "Already answered") {
		t.Fatalf("text on an ordinary question that ended: %+v, want already answered", r)
	}
}

// TestConversationGating: a person who may not answer the question is
// refused as usual and nothing reaches the session; the refusal is
// logged once per sender and session. A person's words the session
// cannot take are refused, naming the problem.
func TestConversationGating(t *testing.T) {
	e := newTalkEnv(t)
	ctx := context.Background()
	q := e.ask(t, "claude", "s1", true)
	c1 := e.copyIn(t, q, "chat", "c1")
	e.b.HandleInbound(ctx, inThread(c1, "ana", "/answer "+q.ID+" 1"))
	cursor := e.listen(t, "claude", "s1")
	for range 3 {
		r := e.b.HandleInbound(ctx, inThread(c1, "bo", "run it again, please"))
		if r.OK || !errors.Is(r.Err, broker.ErrForbidden) || !strings.HasPrefix(r.Text, "You are not one of the people asked to answer") {
			t.Fatalf("Bo's text: %+v, want the usual refusal", r)
		}
	}
	other := e.ask(t, "claude", "s2", true)
	oc := e.copyIn(t, other, "chat", "c1")
	e.b.HandleInbound(ctx, inThread(oc, "ana", "/answer "+other.ID+" 2"))
	e.b.HandleInbound(ctx, inThread(oc, "bo", "and this one"))
	if n := strings.Count(e.logs.String(), "message to an agent's session dropped"); n != 2 {
		t.Fatalf("%d log lines for Bo's refused messages in two sessions, want 2:\n%s", n, e.logs.String())
	}
	for _, tc := range []struct{ name, text, says string }{
		{"too long", strings.Repeat("a", broker.MaxSessionMessageChars+1), "Nothing was sent: your message has 4001 characters; the agent's session takes at most 4000."},
		{"control character", "hello\x1b[2J", "Nothing was sent: the text contains a control character (U+001B) at character 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.b.HandleInbound(ctx, inThread(c1, "ana", tc.text))
			if r.OK || !errors.Is(r.Err, broker.ErrInvalid) || !strings.HasPrefix(r.Text, tc.says) {
				t.Fatalf("reply %+v, want %q", r, tc.says)
			}
		})
	}
	if msgs, _, err := e.b.SessionMessages(ctx, "claude", "s1", cursor, 0); err != nil || len(msgs) != 0 {
		t.Fatalf("the session got %+v, %v; want nothing", msgs, err)
	}
}

// TestConversationLongPoll: a waiting poll returns the message kept
// while it waits, and a poll with a number above the conversation's
// (its numbers restarted) returns every message.
func TestConversationLongPoll(t *testing.T) {
	e := newTalkEnv(t)
	ctx := context.Background()
	q := e.ask(t, "claude", "s1", true)
	c1 := e.copyIn(t, q, "chat", "c1")
	e.b.HandleInbound(ctx, inThread(c1, "ana", "/answer "+q.ID+" 1"))
	cursor := e.listen(t, "claude", "s1")
	got := make(chan []broker.SessionMessage)
	go func() {
		msgs, _, err := e.b.SessionMessages(ctx, "claude", "s1", cursor, time.Minute)
		if err != nil {
			t.Error(err)
		}
		got <- msgs
	}()
	if r := e.b.HandleInbound(ctx, inThread(c1, "ana", "ping")); !r.OK {
		t.Fatalf("ana's text: %+v", r)
	}
	if msgs := <-got; len(msgs) != 1 || msgs[0].Text != "ping" {
		t.Fatalf("the waiting poll got %+v, want ping", msgs)
	}
	msgs, next, err := e.b.SessionMessages(ctx, "claude", "s1", 9999, 0)
	if err != nil || len(msgs) != 1 || msgs[0].Text != "ping" || next != msgs[0].Seq {
		t.Fatalf("a poll past the conversation's numbers: %+v, next %d, %v; want every message", msgs, next, err)
	}
	if _, _, err := e.b.SessionMessages(ctx, "claude", "", 0, 0); !isField(err, "session_id") {
		t.Fatalf("an empty session: %v, want an error naming session_id", err)
	}
}

// isField reports whether err is a *broker.FieldError naming field.
func isField(err error, field string) bool {
	var fe *broker.FieldError
	return errors.As(err, &fe) && fe.Field == field
}

// TestConversationReply: the agent's reply goes beside the copy the
// person wrote on (the latest message, or the one it names), is kept in
// the conversation and not handed back to the session; every bad input
// is refused, naming it, and posts nothing.
func TestConversationReply(t *testing.T) {
	e := newTalkEnv(t)
	ctx := context.Background()
	q := e.ask(t, "claude", "s1", true)
	c1, c2 := e.copyIn(t, q, "chat", "c1"), e.copyIn(t, q, "chat", "c2")
	e.b.HandleInbound(ctx, inThread(c1, "ana", "/answer "+q.ID+" 1"))
	cursor := e.listen(t, "claude", "s1")
	e.b.HandleInbound(ctx, inThread(c1, "ana", "first, in c1"))
	e.b.HandleInbound(ctx, inThread(c2, "ana", "then, in c2"))
	msgs, cursor, err := e.b.SessionMessages(ctx, "claude", "s1", cursor, 0)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages %+v, %v", msgs, err)
	}

	sent, err := e.b.ReplyInSession(ctx, "claude", "s1", 0, "  Because the tests need a clean build.\r\n")
	if err != nil || sent.From != broker.FromAgent || sent.Text != "Because the tests need a clean build." || sent.Seq <= msgs[1].Seq {
		t.Fatalf("reply to the latest: %+v, %v", sent, err)
	}
	if _, err := e.b.ReplyInSession(ctx, "claude", "s1", msgs[0].Seq, "Answering the first."); err != nil {
		t.Fatal(err)
	}
	posts := e.chat.posts()
	if len(posts) != 2 || posts[0].copy.MessageID != c2.MessageID || posts[0].text != "Because the tests need a clean build." ||
		posts[1].copy.MessageID != c1.MessageID || posts[0].question != q.ID {
		t.Fatalf("posted %+v; want the first reply beside c2's copy, the second beside c1's", posts)
	}
	if again, next, err := e.b.SessionMessages(ctx, "claude", "s1", cursor, 0); err != nil || len(again) != 0 || next <= cursor {
		t.Fatalf("after the replies the session reads %+v (next %d after %d), %v; want none, the cursor past them", again, next, cursor, err)
	}

	for _, tc := range []struct {
		name, agent, session string
		seq                  int64
		text                 string
		field                string
		is                   error
	}{
		{"empty text", "claude", "s1", 0, " \n ", "text", broker.ErrInvalid},
		{"too long", "claude", "s1", 0, strings.Repeat("é", broker.MaxReplyChars+1), "text", broker.ErrInvalid},
		{"control character", "claude", "s1", 0, "done\x07", "text", broker.ErrInvalid},
		{"empty session", "claude", "", 0, "hi", "session_id", broker.ErrInvalid},
		{"negative message", "claude", "s1", -1, "hi", "message_id", broker.ErrInvalid},
		{"unknown session", "claude", "s9", 0, "hi", "", broker.ErrNotFound},
		{"unknown message", "claude", "s1", 9999, "hi", "", broker.ErrNotFound},
		{"the agent's own reply", "claude", "s1", sent.Seq, "hi", "", broker.ErrNotFound},
		{"another agent's session", "codex", "s1", 0, "hi", "", broker.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.b.ReplyInSession(ctx, tc.agent, tc.session, tc.seq, tc.text)
			if !errors.Is(err, tc.is) || (tc.field != "" && !isField(err, tc.field)) {
				t.Fatalf("error %v, want %v naming %q", err, tc.is, tc.field)
			}
		})
	}
	if n := len(e.chat.posts()); n != 2 {
		t.Fatalf("%d posts after the refused replies, want 2", n)
	}

	// Written on a channel that cannot show replies: a conflict.
	x1 := e.copyIn(t, q, "plain", "x1")
	if r := e.b.HandleInbound(ctx, broker.Inbound{Channel: "plain", Chat: "x1", User: "ana-x", Text: "from plain", ReplyTo: x1.MessageID}); !r.OK {
		t.Fatalf("ana's text on plain: %+v", r)
	}
	if _, err := e.b.ReplyInSession(ctx, "claude", "s1", 0, "hello"); !errors.Is(err, broker.ErrConflict) || !strings.Contains(err.Error(), "cannot show replies") {
		t.Fatalf("a reply to a message written on plain: %v, want a conflict", err)
	}
	// The platform refuses: not posted, nothing kept.
	e.b.HandleInbound(ctx, inThread(c1, "ana", "one more"))
	e.chat.mu.Lock()
	e.chat.fail = errors.New("channel_not_found")
	e.chat.mu.Unlock()
	if _, err := e.b.ReplyInSession(ctx, "claude", "s1", 0, "hello"); !errors.Is(err, broker.ErrNotPosted) {
		t.Fatalf("a refused post: %v, want ErrNotPosted", err)
	}
	all, _, err := e.st.SessionMessages(ctx, "claude", "s1", 0, e.clock.Now(), 0)
	if err != nil || len(all) != 6 || all[5].Text != "one more" {
		t.Fatalf("the conversation holds %+v, %v; want four messages and the two replies, no refused one", all, err)
	}
}
