package web

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
)

// talkEnv is the inbox on the real broker and SQLite store, reading
// conversations from the broker.
type talkEnv struct {
	br  *channeltest.Bridge
	url string
}

func newTalkEnv(t *testing.T) *talkEnv {
	t.Helper()
	br := channeltest.NewBridge(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: Name}}}},
		func(c *broker.Config) { c.ReminderPoints, c.Location, c.Logger = []float64{}, time.UTC, quiet })
	ch, err := New(Config{}, br, Options{Logger: quiet, Location: time.UTC, Lister: br.Store, Loopback: true, Conversations: br.Broker})
	if err != nil {
		t.Fatal(err)
	}
	br.Register(ch)
	srv := httptest.NewServer(ch.Handler())
	t.Cleanup(func() { ch.Close(); srv.Close() })
	return &talkEnv{br: br, url: srv.URL + "/"}
}

// ended asks a question (a conversation, or not) in session s1 and has
// the inbox's user answer it.
func (e *talkEnv) ended(t *testing.T, conversation bool) *broker.Question {
	t.Helper()
	ctx := context.Background()
	q, _, err := e.br.Broker.Ask(ctx, "agent", &broker.AskRequest{SessionID: "s1", Conversation: conversation,
		Question: "Claude Code asks: allow Bash?", Options: []broker.Option{opt("Allow once", ""), opt("Deny", "")}})
	if err != nil {
		t.Fatal(err)
	}
	if r := e.br.HandleInbound(ctx, broker.Inbound{Channel: Name, User: "local", Name: "local", Text: "/answer " + q.ID + " 1", Private: true}); !r.OK {
		t.Fatalf("answer: %+v", r)
	}
	return q
}

// say posts body to /inbox/say as the page does.
func (e *talkEnv) say(t *testing.T, body string) (int, reply) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url+"inbox/say", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", strings.TrimSuffix(e.url, "/"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r reply
	_ = json.NewDecoder(resp.Body).Decode(&r)
	return resp.StatusCode, r
}

// TestSayBadInput: the box's endpoint refuses what it cannot send,
// naming the problem, and sends nothing.
func TestSayBadInput(t *testing.T) {
	e := newTalkEnv(t)
	q := e.ended(t, true)
	ctx := context.Background()
	_, cursor, err := e.br.SessionMessages(ctx, "agent", "s1", -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		status     int
		says       string
	}{
		{"no question", `{"text":"hi"}`, 400, "question: name the question"},
		{"not an id", `{"question":"../x","text":"hi"}`, 400, "question: name the question"},
		{"empty text", `{"question":"` + q.ID + `","text":"  "}`, 400, "Type a message for the agent first"},
		{"too long", `{"question":"` + q.ID + `","text":"` + strings.Repeat("a", maxCommandLen+1) + `"}`, 400, "too long"},
		{"unknown field", `{"question":"` + q.ID + `","text":"hi","to":"x"}`, 400, "Refused:"},
		{"unknown question", `{"question":"zzzzzz","text":"hi"}`, 200, "There is no question zzzzzz here."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, r := e.say(t, tc.body)
			if status != tc.status || r.OK || !strings.Contains(r.Reply, tc.says) {
				t.Fatalf("%d %+v, want %d saying %q", status, r, tc.status, tc.says)
			}
		})
	}
	if msgs, _, err := e.br.SessionMessages(ctx, "agent", "s1", cursor, 0); err != nil || len(msgs) != 0 {
		t.Fatalf("the session got %+v, %v", msgs, err)
	}
}

// TestBrowserConversation: in a real browser, the card of an ended
// conversation question takes a message for the agent's session, which
// reaches it, and shows the message and the agent's reply; an ordinary
// question's card has no such box.
func TestBrowserConversation(t *testing.T) {
	browser := newBrowser(t)
	e := newTalkEnv(t)
	ctx := context.Background()
	plain := e.ended(t, false)
	q := e.ended(t, true)
	_, cursor, err := e.br.SessionMessages(ctx, "agent", "s1", -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	page := tab(t, browser, false)
	open(t, page, e.url)
	waitText(t, page, past(q.ID)+" .conversation label", "Message to the agent")
	if n := eval[int](t, page, `document.querySelectorAll('`+past(plain.ID)+` .conversation').length`); n != 0 {
		t.Fatalf("an ordinary question's card has %d conversation boxes", n)
	}
	typeInto(t, page, "#h-"+q.ID+"-say", "Why that command?\n")
	waitText(t, page, "#notice", "Sent to the agent's session.")
	msgs, _, err := e.br.SessionMessages(ctx, "agent", "s1", cursor, 0)
	if err != nil || len(msgs) != 1 || msgs[0].Text != "Why that command?" || msgs[0].By.Channel != Name || msgs[0].QuestionID != q.ID {
		t.Fatalf("the session got %+v, %v", msgs, err)
	}
	waitText(t, page, past(q.ID)+" .line.person", "Why that command?")
	if _, err := e.br.ReplyInSession(ctx, "agent", "s1", 0, "It <rebuilds> the cache."); err != nil {
		t.Fatal(err)
	}
	waitText(t, page, past(q.ID)+" .line.agent", "It <rebuilds> the cache.")
	waitText(t, page, past(q.ID)+" .line.agent .who", "The agent")
	// A reload shows the same conversation, read from the store.
	do(t, page, reload())
	waitText(t, page, past(q.ID)+" .line.agent", "It <rebuilds> the cache.")
	// A German reader's page names the agent in German.
	do(t, page, acceptLanguage("de"), reload())
	waitText(t, page, past(q.ID)+" .line.agent .who", "Der Agent")
	waitText(t, page, past(q.ID)+" .line.agent", "It <rebuilds> the cache.")
}
