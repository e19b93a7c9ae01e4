package hooks

import (
	"bytes"
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// chatChannel is a chat whose person answers each question as soon as it
// is posted, with the command answer returns for it ("" for nobody
// answers), through the broker's one inbound path.
type chatChannel struct {
	b      *sqlitetest.Broker
	answer func(q *broker.Question) string

	mu      sync.Mutex
	posts   []*broker.Question
	updates []*broker.Question
	wg      sync.WaitGroup
}

func (c *chatChannel) Name() string { return "chat" }

func (c *chatChannel) Post(_ context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	c.mu.Lock()
	c.posts = append(c.posts, q.Clone())
	c.mu.Unlock()
	if cmd := c.answer(q); cmd != "" {
		c.wg.Go(func() {
			// The broker records the posted copy after Post returns:
			// answer once it is known, as a person would.
			for range 500 {
				if refs, _ := c.b.Store.Messages(c.b.Ctx, q.ID); len(refs) > 0 {
					break
				}
				time.Sleep(2 * time.Millisecond)
			}
			c.b.HandleInbound(c.b.Ctx, broker.Inbound{Channel: "chat", Chat: chat, User: "U1", Name: "ana", Text: cmd})
		})
	}
	return broker.MessageRef{Channel: "chat", Chat: chat, MessageID: q.ID}, nil
}

func (c *chatChannel) Update(_ context.Context, q *broker.Question, _ broker.MessageRef) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, q.Clone())
	return nil
}

// updatedTo reports whether the copy of question id was edited to show it
// ended with status and reason.
func (c *chatChannel) updatedTo(id string, status broker.Status, reason string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, q := range c.updates {
		if q.ID == id && q.Status == status && q.Reason == reason {
			return true
		}
	}
	return false
}

// postCount is how many questions reached the chat.
func (c *chatChannel) postCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.posts)
}

// testBridge is a bridge in this process: the real API and broker over a
// SQLite file. Route "default" posts to the chat channel, route "quiet"
// has no targets. ASKBRIDGE_SERVER points at it for the test.
type testBridge struct {
	*sqlitetest.Broker
	chat *chatChannel
	url  string
}

func startTestBridge(t *testing.T, answer func(q *broker.Question) string) *testBridge {
	t.Helper()
	sb := sqlitetest.NewBroker(t, func(c *broker.Config) {
		c.Routes = map[string]broker.Route{
			broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "room"}}},
			"quiet":             {Targets: []broker.Target{}},
		}
	})
	ch := &chatChannel{b: sb, answer: answer}
	sb.Register(ch)
	// The outbox loop, as the bridge runs it: an edit asked for while
	// the copy was being posted is retried by it, not by the direct
	// attempt that found no copy yet.
	outboxCtx, stopOutbox := context.WithCancel(context.Background())
	outboxDone := make(chan struct{})
	go func() { defer close(outboxDone); sb.RunOutbox(outboxCtx) }()
	t.Cleanup(func() {
		stopOutbox()
		<-outboxDone
	})
	srv := api.New(api.Config{Loopback: true, Logger: slog.New(slog.DiscardHandler)}, sb.Broker, sb.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Drain()
		hs.Close()
		ch.wg.Wait()
	})
	t.Setenv("ASKBRIDGE_SERVER", hs.URL)
	t.Setenv("ASKBRIDGE_KEY", "")
	return &testBridge{Broker: sb, chat: ch, url: hs.URL}
}

// allowOnce answers every question with its first option.
func allowOnce(q *broker.Question) string { return broker.FormatOption(q.Ref(0), 0) }

// runHook runs `bridge hook AGENT` on the event and returns its output.
func runHook(t *testing.T, agent agentHook, event string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	o := hookOptions{timeout: time.Minute, connectTimeout: 5 * time.Second}
	for i := 0; i+1 < len(args); i += 2 {
		if args[i] == "--route" {
			o.route = args[i+1]
		}
	}
	var out, errb bytes.Buffer
	code = runAgentHook(agent, o, strings.NewReader(event), &out, &errb)
	return out.String(), errb.String(), code
}

// nobody leaves every question unanswered.
func nobody(*broker.Question) string { return "" }

// pendingIn waits until the session has n open questions and returns them.
func (b *testBridge) pendingIn(t *testing.T, session string, n int) []*broker.Question {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var open []*broker.Question
		for _, q := range b.sessionQuestions(t, session) {
			if q.Status == broker.StatusPending {
				open = append(open, q)
			}
		}
		if len(open) == n {
			return open
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d open questions in %s, want %d", len(open), session, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sessionQuestions lists every question of a session.
func (b *testBridge) sessionQuestions(t *testing.T, session string) []*broker.Question {
	t.Helper()
	qs, err := b.List(context.Background(), broker.Filter{SessionID: session, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return qs
}
