package web

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
)

// env is a running bridge in miniature: the real broker on a real SQLite
// file, the web inbox registered as its only channel, and the inbox's
// handler on an HTTP test server.
type env struct {
	b   *broker.Broker
	st  broker.Store
	ch  *Channel
	srv *httptest.Server
	url string
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newEnv(t *testing.T, cfg Config, opts Options) *env {
	t.Helper()
	br := channeltest.NewBridge(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: Name}}}, "snooze": snoozeRoute},
		func(c *broker.Config) { c.ReminderPoints, c.Location, c.Logger = []float64{}, time.UTC, quiet })
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.Sessions == nil {
		opts.Sessions = br.Store.(broker.Sessions)
	}
	opts.Lister = br.Store
	ch, err := New(cfg, br, opts)
	if err != nil {
		t.Fatalf("new web channel: %v", err)
	}
	br.Register(ch)
	srv := httptest.NewServer(ch.Handler())
	t.Cleanup(func() {
		ch.Close()
		srv.Close()
	})
	return &env{b: br.Broker, st: br.Store, ch: ch, srv: srv, url: srv.URL + "/"}
}

// ask asks req as agent "agent" and fails the test on error.
func (e *env) ask(t *testing.T, req *broker.AskRequest) *broker.Question {
	t.Helper()
	q, _, err := e.b.Ask(context.Background(), "agent", req)
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	if q.Status != broker.StatusPending {
		t.Fatalf("ask: question is %s (%s), want pending", q.Status, q.Reason)
	}
	return q
}

// wait starts an agent blocked in b.Wait, as a real agent would be, and
// returns where its result arrives.
func (e *env) wait(t *testing.T, id string) <-chan *broker.Question {
	t.Helper()
	out := make(chan *broker.Question, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitFor)
	go func() {
		defer cancel()
		q, err := e.b.Wait(ctx, "agent", id)
		if err != nil {
			t.Errorf("wait %s: %v", id, err)
		}
		out <- q
	}()
	return out
}

// result receives the waiting agent's result and checks it is final.
func result(t *testing.T, got <-chan *broker.Question) *broker.Question {
	t.Helper()
	q := <-got
	if q == nil {
		t.Fatal("wait returned no question")
	}
	if q.Status == broker.StatusPending {
		t.Fatalf("wait returned question %s still pending", q.ID)
	}
	return q
}

// get reads a question from the store.
func (e *env) get(t *testing.T, id string) *broker.Question {
	t.Helper()
	q, err := e.st.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return q
}

func opt(label, desc string) broker.Option { return broker.Option{Label: label, Description: desc} }
