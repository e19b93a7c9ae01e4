package broker_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// startBridge builds a broker from cfg with channels registered and runs
// it as the bridge does until the test ends; it returns the broker and
// its store. What cfg leaves unset is filled in: the store is a new
// SQLite file in the test's directory, the log is discarded, and the
// grace is 30 s, since an ask returns once its first posts are done and
// on a busy machine they may take longer than the default 2 s. The
// broker's deliverer is the outbox on its store (outbox.Attach); both
// loops run, the store's feed (Broker.Run) and the outbox
// (Broker.RunOutbox). On the store it opened it returns once Run follows
// the feed, so that no resolution the test makes goes unheard. When the
// test ends both loops stop, then the broker closes, and the store it
// opened closes last.
func startBridge(t testing.TB, cfg broker.Config, channels ...broker.Channel) (*broker.Broker, broker.Store) {
	t.Helper()
	var followed *followedStore
	if cfg.Store == nil {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
		if err != nil {
			t.Fatal(err)
		}
		// Registered first, so it runs last: after the broker's clean-up.
		t.Cleanup(func() { st.Close() })
		followed = &followedStore{Store: st, following: make(chan struct{})}
		cfg.Store = followed
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Grace == 0 {
		cfg.Grace = 30 * time.Second
	}
	b, err := broker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, cfg.Store, outbox.Config{})
	for _, ch := range channels {
		b.Register(ch)
	}
	ctx, cancel := context.WithCancel(context.Background())
	fed := make(chan struct{})
	go func() { b.Run(ctx); close(fed) }()
	delivered := make(chan struct{})
	go func() { b.RunOutbox(ctx); close(delivered) }()
	t.Cleanup(func() { cancel(); <-fed; <-delivered; b.Close() })
	if followed != nil {
		select {
		case <-followed.following:
		case <-time.After(15 * time.Second):
			t.Fatal("the broker's Run did not follow the store's feed within 15 s")
		}
	}
	return b, cfg.Store
}

// followedStore is a SQLite store that closes following once the feed is
// first taken (Store.Watch), which only Broker.Run does. The feed reaches
// a subscriber from the moment it subscribes, and Run subscribes on a
// goroutine of its own: on a loaded machine a resolution made right after
// the set-up could otherwise be published before, and wake no waiter.
type followedStore struct {
	*sqlite.Store
	once      sync.Once
	following chan struct{}
}

func (s *followedStore) Watch(ctx context.Context) <-chan broker.Resolved {
	c := s.Store.Watch(ctx)
	s.once.Do(func() { close(s.following) })
	return c
}

// newPeople is the directory of persons and groups, failing t when it is
// not valid.
func newPeople(t testing.TB, persons []broker.Person, groups map[string][]string) *broker.People {
	t.Helper()
	p, err := broker.NewPeople(persons, groups)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
