package channeltest

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/testutil"
	"github.com/askbridge/askbridge/store/sqlite"
)

// Bridge is the real broker on a temporary SQLite file, running until the
// test ends: the set-up every channel's end-to-end test starts from.
type Bridge struct {
	*broker.Broker
	// Store is the broker's store.
	Store broker.Store
	// Ctx ends when the test does.
	Ctx context.Context
	// Logs holds what the broker (and the channels given Logger) logged.
	Logs *testutil.Buffer
	// Logger writes to Logs at debug level.
	Logger *slog.Logger

	t  testing.TB
	wg sync.WaitGroup
}

// NewBridge opens a store in a temporary directory and starts a broker
// with routes on it, and its outbox; configure may adjust the broker's configuration
// (timeouts, responders) before it starts. Register channels with
// Start.
func NewBridge(t testing.TB, routes map[string]broker.Route, configure ...func(*broker.Config)) *Bridge {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "askbridge.db"))
	if err != nil {
		cancel()
		t.Fatalf("open store: %v", err)
	}
	logs := &testutil.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := broker.Config{Store: st, Routes: routes, Logger: log}
	for _, f := range configure {
		f(&cfg)
	}
	b, err := broker.New(cfg)
	if err != nil {
		cancel()
		_ = st.Close()
		t.Fatalf("broker: %v", err)
	}
	br := &Bridge{Broker: b, Store: st, Ctx: ctx, Logs: logs, Logger: log, t: t}
	br.wg.Add(2)
	go func() { defer br.wg.Done(); b.Run(ctx) }()
	// The outbox sends again what a first attempt could not (a 429, a
	// platform down), as on every bridge instance.
	go func() { defer br.wg.Done(); b.RunOutbox(ctx) }()
	t.Cleanup(func() {
		cancel()
		br.wg.Wait()
		b.Close()
		_ = st.Close()
	})
	return br
}

// Start registers ch with the broker and, when it has an inbound loop
// (broker.Runner), runs it until the test ends. A Run that fails while
// the test is still going fails the test.
func (br *Bridge) Start(ch broker.Channel) {
	br.Register(ch)
	r, ok := ch.(broker.Runner)
	if !ok {
		return
	}
	br.wg.Add(1)
	go func() {
		defer br.wg.Done()
		if err := r.Run(br.Ctx); err != nil && br.Ctx.Err() == nil {
			br.t.Errorf("%s: Run: %v", ch.Name(), err)
		}
	}()
}

// Ask asks req as agent "agent" and fails the test unless the question
// is pending.
func (br *Bridge) Ask(req *broker.AskRequest) *broker.Question {
	br.t.Helper()
	q, _, err := br.Broker.Ask(br.Ctx, "agent", req)
	if err != nil {
		br.t.Fatalf("ask: %v", err)
	}
	if q.Status != broker.StatusPending {
		br.t.Fatalf("question %s is %s, not pending: %s", q.ID, q.Status, q.Reason)
	}
	return q
}

// Question reads id from the store.
func (br *Bridge) Question(id string) *broker.Question {
	br.t.Helper()
	q, err := br.Store.Get(br.Ctx, id)
	if err != nil {
		br.t.Fatalf("get %s: %v", id, err)
	}
	return q
}
