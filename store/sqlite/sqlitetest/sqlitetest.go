package sqlitetest

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// Broker is the real broker over a SQLite store, with Run going and its
// outbox attached (run it with Outbox.Run or RunOutbox).
type Broker struct {
	*broker.Broker
	// Outbox delivers the broker's platform work.
	Outbox *outbox.Outbox
	// Store is the store under the broker, unwrapped.
	Store *sqlite.Store
	// Path is the SQLite file.
	Path string
	// Ctx is the context Run runs with; it ends with Stop.
	Ctx context.Context

	cancel  context.CancelFunc
	done    chan struct{}
	stopped sync.Once
	closed  sync.Once
}

// DefaultRoute returns a configuration function that sends every
// question without a route of its own to chat on channel.
func DefaultRoute(channel, chat string) func(*broker.Config) {
	return func(c *broker.Config) {
		c.Routes = map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: channel, Chat: chat}}}}
	}
}

// OpenStore opens a store on a new SQLite file in t's temporary
// directory and closes it when the test ends.
func OpenStore(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "askbridge.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// NewBroker starts a broker over a store on a new SQLite file in t's
// temporary directory, until the test ends.
func NewBroker(t testing.TB, configure ...func(*broker.Config)) *Broker {
	t.Helper()
	return NewBrokerOutbox(t, outbox.Config{}, configure...)
}

// NewBrokerOutbox is NewBroker with the outbox configured by ocfg.
func NewBrokerOutbox(t testing.TB, ocfg outbox.Config, configure ...func(*broker.Config)) *Broker {
	t.Helper()
	b, err := StartOutbox(filepath.Join(t.TempDir(), "askbridge.db"), ocfg, configure...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// OpenBroker starts a broker over a store on the SQLite file at path,
// until the test ends.
func OpenBroker(t testing.TB, path string, configure ...func(*broker.Config)) *Broker {
	t.Helper()
	b, err := Start(path, configure...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// Start opens the store at path and starts a broker over it; the caller
// ends both with Close.
func Start(path string, configure ...func(*broker.Config)) (*Broker, error) {
	return StartOutbox(path, outbox.Config{}, configure...)
}

// StartOutbox is Start with the outbox configured by ocfg.
func StartOutbox(path string, ocfg outbox.Config, configure ...func(*broker.Config)) (*Broker, error) {
	ctx, cancel := context.WithCancel(context.Background())
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("open store: %w", err)
	}
	cfg := broker.Config{Store: st, Logger: slog.New(slog.DiscardHandler)}
	for _, f := range configure {
		f(&cfg)
	}
	b, err := broker.New(cfg)
	if err != nil {
		cancel()
		_ = st.Close()
		return nil, fmt.Errorf("broker: %w", err)
	}
	ob := outbox.Attach(b, st, ocfg)
	sb := &Broker{Broker: b, Outbox: ob, Store: st, Path: path, Ctx: ctx, cancel: cancel, done: make(chan struct{})}
	go func() { defer close(sb.done); b.Run(ctx) }()
	return sb, nil
}

// Stop ends Ctx and waits for Run to return; the broker and the store
// stay open until Close.
func (b *Broker) Stop() {
	b.stopped.Do(func() {
		b.cancel()
		<-b.done
	})
}

// Close stops the broker, then closes it and the store. It may be called
// more than once.
func (b *Broker) Close() {
	b.Stop()
	b.closed.Do(func() {
		b.Broker.Close()
		_ = b.Store.Close()
	})
}
