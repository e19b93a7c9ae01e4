package channeltest

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/internal/testutil"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
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
	return newBridge(t, routes, outbox.Config{}, configure...)
}

// newBridge is NewBridge with the outbox configured by ocfg.
func newBridge(t testing.TB, routes map[string]broker.Route, ocfg outbox.Config, configure ...func(*broker.Config)) *Bridge {
	t.Helper()
	logs := &testutil.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	base := func(c *broker.Config) { c.Routes, c.Logger = routes, log }
	sb := sqlitetest.NewBrokerOutbox(t, ocfg, append([]func(*broker.Config){base}, configure...)...)
	br := &Bridge{Broker: sb.Broker, Store: sb.Store, Ctx: sb.Ctx, Logs: logs, Logger: log, t: t}
	// The outbox sends again what a first attempt could not (a 429, a
	// platform down), as on every bridge instance.
	br.wg.Add(1)
	go func() { defer br.wg.Done(); sb.Outbox.Run(sb.Ctx) }()
	// Registered after the broker's cleanup, so it runs first: the
	// channels' loops end before the broker and the store close.
	t.Cleanup(func() { sb.Stop(); br.wg.Wait() })
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

// RunOutbox runs b's outbox loop, which retries the platform work that
// failed within an ask's grace, until the test ends. Call it after the
// broker is built, so that it stops before the broker closes.
func RunOutbox(t testing.TB, b *broker.Broker) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); b.RunOutbox(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// WithPeople configures the broker's directory of people (no groups): a
// quorum or forbid_requester counts only accounts linked to a person.
func WithPeople(t testing.TB, people ...broker.Person) func(*broker.Config) {
	t.Helper()
	d, err := broker.NewPeople(people, nil)
	if err != nil {
		t.Fatal(err)
	}
	return func(c *broker.Config) { c.People = d }
}
