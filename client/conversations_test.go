package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// threadChannel is a chat channel "thread" that remembers its copies and
// posts replies beside them.
type threadChannel struct {
	mu      sync.Mutex
	copies  map[string]broker.MessageRef
	replies []string
}

func (c *threadChannel) Name() string { return "thread" }

func (c *threadChannel) Post(_ context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ref := broker.MessageRef{Channel: "thread", Chat: chat, MessageID: "ts-" + q.ID}
	c.copies[q.ID] = ref
	return ref, nil
}

func (c *threadChannel) PostInThread(_ context.Context, _ *broker.Question, m broker.MessageRef, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.replies = append(c.replies, m.MessageID+": "+text)
	return nil
}

func (c *threadChannel) copyOf(id string) (broker.MessageRef, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ref, ok := c.copies[id]
	return ref, ok
}

// TestSessionConversation: a question asked with Conversation is one;
// once answered, a person's words in its thread reach SessionMessages,
// which resumes after the last one seen, and ReplyInSession posts the
// agent's answer in that thread. Bad input comes back as *APIError
// naming the field, or 404.
func TestSessionConversation(t *testing.T) {
	sb, err := sqlitetest.Start(filepath.Join(t.TempDir(), "b.db"), sqlitetest.DefaultRoute("thread", "room"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	ch := &threadChannel{copies: map[string]broker.MessageRef{}}
	sb.Register(ch)
	srv := api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, sb.Broker, sb.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close() })
	c := client.New(hs.URL, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	res, err := c.Submit(ctx, client.Question{SessionID: "s1", Conversation: true, Question: "Allow Bash?", Wait: "0s",
		Options: []client.Option{{Label: "Allow once"}, {Label: "Deny"}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctx, res.ID, 0)
	if err != nil || !got.Conversation {
		t.Fatalf("Get = %+v, %v; want a conversation", got, err)
	}
	var ref broker.MessageRef
	for ok := false; !ok; ref, ok = ch.copyOf(res.ID) {
		time.Sleep(5 * time.Millisecond)
	}
	say := func(text string) broker.Reply {
		return sb.HandleInbound(ctx, broker.Inbound{Channel: "thread", Chat: "room", User: "u1", Name: "ana", Text: text, ReplyTo: ref.MessageID})
	}
	say("/answer " + res.ID + " 1")
	first, err := c.SessionMessages(ctx, "s1", -1, 0)
	if err != nil || len(first.Messages) != 0 {
		t.Fatalf("first poll = %+v, %v", first, err)
	}
	if r := say("and run the linter"); !r.OK {
		t.Fatalf("the person's message: %+v", r)
	}
	page, err := c.SessionMessages(ctx, "s1", first.Next, 5*time.Second)
	if err != nil || len(page.Messages) != 1 {
		t.Fatalf("SessionMessages = %+v, %v", page, err)
	}
	m := page.Messages[0]
	if m.Text != "and run the linter" || m.QuestionID != res.ID || m.By.Channel != "thread" || m.By.Name != "ana" || m.Chat != "room" || m.MessageID == "" {
		t.Fatalf("message %+v", m)
	}
	sent, err := c.ReplyInSession(ctx, "s1", m.MessageID, "Linting now.")
	if err != nil || sent.ReplyTo != m.MessageID || sent.Channel != "thread" || sent.QuestionID != res.ID {
		t.Fatalf("ReplyInSession = %+v, %v", sent, err)
	}
	ch.mu.Lock()
	replies := append([]string(nil), ch.replies...)
	ch.mu.Unlock()
	if len(replies) != 1 || replies[0] != ref.MessageID+": Linting now." {
		t.Fatalf("posted %q, want the reply in the question's thread", replies)
	}
	if _, err := c.ReplyInSession(ctx, "s1", "", ""); !isField(err, "text") {
		t.Fatalf("an empty reply: %v, want a 400 naming text", err)
	}
	if _, err := c.ReplyInSession(ctx, "s1", "x", "hi"); !isField(err, "message_id") {
		t.Fatalf("a bad message id: %v, want a 400 naming message_id", err)
	}
	var ae *client.APIError
	if _, err := c.ReplyInSession(ctx, "nobody", "", "hi"); !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound {
		t.Fatalf("an unknown session: %v, want a 404", err)
	}
	if _, err := c.SessionMessages(ctx, "s1", 0, -time.Second); err != nil {
		t.Fatalf("a negative wait is no wait: %v", err)
	}
}
