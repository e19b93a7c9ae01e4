package api_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// threads is a recording channel "chat" that also posts in threads.
type threads struct {
	*brokertest.Channel
	mu    sync.Mutex
	texts []string
	fail  error
}

func (c *threads) PostInThread(_ context.Context, q *broker.Question, m broker.MessageRef, text string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return c.fail
	}
	c.texts = append(c.texts, q.ID+"@"+m.Chat+"/"+m.MessageID+": "+text)
	return nil
}

func (c *threads) posted() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.texts...)
}

// newConversationServer is the API over a broker whose default route
// posts to chat "c1" of the threading channel "chat".
func newConversationServer(t *testing.T) (*server, *threads) {
	t.Helper()
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute("chat", "c1"))
	ch := &threads{Channel: brokertest.NewChannel("chat")}
	b.Register(ch)
	srv := api.New(api.Config{
		AgentKeys: []api.Key{{Name: "claude", Secret: agentKey}, {Name: "other", Secret: otherKey}},
		Loopback:  true, Logger: slog.New(slog.DiscardHandler),
	}, b.Broker, b.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close() })
	return &server{Server: hs, api: srv, b: b.Broker, st: b.Store}, ch
}

// TestConversationOverHTTP: the session's poll returns a person's
// message on an ended conversation question with who wrote it and where;
// the reply goes beside that copy; every bad input is a 400 naming its
// field or a 404 naming what is unknown, and posts nothing.
func TestConversationOverHTTP(t *testing.T) {
	s, ch := newConversationServer(t)
	ctx := context.Background()
	status, q := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{
		"session_id": "s1", "conversation": true, "question": "Claude Code asks: allow Bash?", "wait": "0s",
		"options": []map[string]string{{"label": "Allow once"}, {"label": "Deny"}},
	})
	if status != 202 {
		t.Fatalf("ask: %d %v", status, q)
	}
	id := q["id"].(string)
	if status, got := s.call(t, "GET", "/v1/questions/"+id, agentKey, nil); status != 200 || got["conversation"] != true {
		t.Fatalf("GET the question: %d %v; want conversation true", status, got)
	}
	if !ch.WaitFor(10*time.Second, func(*brokertest.Channel) bool { return len(ch.Posts()) == 1 }) {
		t.Fatal("the question was not posted")
	}
	refs, err := s.st.Messages(ctx, id)
	if err != nil || len(refs) != 1 {
		t.Fatalf("copies %+v, %v", refs, err)
	}
	ref := refs[0]
	answer := func(text string) broker.Reply {
		return s.b.HandleInbound(ctx, broker.Inbound{Channel: "chat", Chat: "c1", User: "ana", Name: "Ana", Text: text, ReplyTo: ref.MessageID})
	}
	if r := answer("/answer " + id + " 1"); !r.OK {
		t.Fatalf("answer: %+v", r)
	}
	status, first := s.call(t, "GET", "/v1/sessions/s1/messages?wait=0s", agentKey, nil)
	if status != 200 || len(first["messages"].([]any)) != 0 {
		t.Fatalf("first poll: %d %v", status, first)
	}
	if r := answer("why npm ci?"); !r.OK || r.Text != broker.SentToSession {
		t.Fatalf("ana's message: %+v", r)
	}
	after := jsonInt(first["next"])
	status, got := s.call(t, "GET", "/v1/sessions/s1/messages?wait=5s&after="+after, agentKey, nil)
	msgs, _ := got["messages"].([]any)
	if status != 200 || len(msgs) != 1 {
		t.Fatalf("poll: %d %v; want Ana's message", status, got)
	}
	m := msgs[0].(map[string]any)
	by, _ := m["by"].(map[string]any)
	if m["text"] != "why npm ci?" || m["question_id"] != id || m["chat"] != "c1" || by["channel"] != "chat" || by["user"] != "ana" || m["message_id"] == "" {
		t.Fatalf("message %v", m)
	}
	if jsonInt(got["next"]) != m["message_id"] {
		t.Fatalf("next %v, want the message's number %v", got["next"], m["message_id"])
	}
	// Another agent reads no message of claude's s1.
	if status, other := s.call(t, "GET", "/v1/sessions/s1/messages?wait=0s&after=0", otherKey, nil); status != 200 || len(other["messages"].([]any)) != 0 {
		t.Fatalf("another agent's poll: %d %v", status, other)
	}

	for _, tc := range []struct {
		name, method, path, key string
		body                    any
		status                  int
		field, says             string
	}{
		{"AfterNotANumber", "GET", "/v1/sessions/s1/messages?after=latest", agentKey, nil, 400, "after", ""},
		{"AfterNegative", "GET", "/v1/sessions/s1/messages?after=-2", agentKey, nil, 400, "after", ""},
		{"WaitNotADuration", "GET", "/v1/sessions/s1/messages?wait=soon", agentKey, nil, 400, "wait", ""},
		{"SessionTooLong", "GET", "/v1/sessions/" + strings.Repeat("s", broker.MaxIDFieldChars+1) + "/messages", agentKey, nil, 400, "session_id", ""},
		{"NoKey", "GET", "/v1/sessions/s1/messages", "", nil, 401, "", ""},
		{"ReplyEmpty", "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"text": "  "}, 400, "text", ""},
		{"ReplyNoText", "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"message_id": "1"}, 400, "text", ""},
		{"ReplyTooLong", "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"text": strings.Repeat("x", broker.MaxReplyChars+1)}, 400, "text", ""},
		{"ReplyControl", "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"text": "ok\x1b[31m"}, 400, "text", ""},
		{"ReplyBadMessageID", "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"text": "ok", "message_id": "first"}, 400, "message_id", ""},
		{"ReplyMessageIDNumber", "POST", "/v1/sessions/s1/replies", agentKey, `{"text":"ok","message_id":1}`, 400, "message_id", ""},
		{"ReplyUnknownField", "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"text": "ok", "chat": "c1"}, 400, "chat", "unknown field chat"},
		{"ReplyUnknownSession", "POST", "/v1/sessions/s9/replies", agentKey, map[string]any{"text": "ok"}, 404, "", `session "s9" has no message from a person`},
		{"ReplyUnknownMessage", "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"text": "ok", "message_id": "99"}, 404, "", `session "s1" has no message 99`},
		{"ReplyOtherAgent", "POST", "/v1/sessions/s1/replies", otherKey, map[string]any{"text": "ok"}, 404, "", `session "s1" has no message from a person`},
		{"ReplyNoKey", "POST", "/v1/sessions/s1/replies", "", map[string]any{"text": "ok"}, 401, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := s.call(t, tc.method, tc.path, tc.key, tc.body)
			field, msg := errField(body)
			if status != tc.status || field != tc.field || !strings.Contains(msg, tc.says) {
				t.Fatalf("%d %v; want %d naming %q, saying %q", status, body, tc.status, tc.field, tc.says)
			}
		})
	}
	if n := len(ch.posted()); n != 0 {
		t.Fatalf("%d replies posted by refused requests", n)
	}

	status, sent := s.call(t, "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"text": "To start from the lockfile."})
	if status != 201 || sent["reply_to"] != m["message_id"] || sent["question_id"] != id || sent["channel"] != "chat" || sent["chat"] != "c1" {
		t.Fatalf("reply: %d %v", status, sent)
	}
	if p := ch.posted(); len(p) != 1 || p[0] != id+"@c1/"+ref.MessageID+": To start from the lockfile." {
		t.Fatalf("posted %q, want the reply beside the copy", p)
	}
	ch.mu.Lock()
	ch.fail = errors.New("ratelimited")
	ch.mu.Unlock()
	if status, body := s.call(t, "POST", "/v1/sessions/s1/replies", agentKey, map[string]any{"text": "again", "message_id": m["message_id"]}); status != 502 {
		t.Fatalf("a refused post: %d %v, want 502", status, body)
	} else if e := body["error"].(map[string]any); e["code"] != "not_posted" || !strings.Contains(e["message"].(string), "try again later") {
		t.Fatalf("a refused post: %v", body)
	}
}

// jsonInt is a JSON number as the text of an integer.
func jsonInt(v any) string {
	f, _ := v.(float64)
	return strconv.FormatInt(int64(f), 10)
}
