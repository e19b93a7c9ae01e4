package broker_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// refusingChannel refuses every post for good (the chat is gone), once
// gate is closed.
type refusingChannel struct {
	gate  <-chan struct{}
	mu    sync.Mutex
	posts int
}

func (c *refusingChannel) Name() string { return "chat" }

func (c *refusingChannel) Post(ctx context.Context, _ *broker.Question, chat string) (broker.MessageRef, error) {
	c.mu.Lock()
	c.posts++
	c.mu.Unlock()
	select {
	case <-c.gate:
	case <-ctx.Done():
		return broker.MessageRef{}, ctx.Err()
	}
	return broker.MessageRef{}, fmt.Errorf("chat %s not found: %w", chat, broker.ErrPermanent)
}

// claimedElsewhere is the store of the instance that asks, with one
// interleaving forced: the ask's own claim of its question's posts comes
// only after the other instance's outbox claimed them (signalled on
// other), and so finds nothing. The other instance's attempt is held
// until the asking instance next reads the store after that claim, so
// that it has not ended before the ask could look.
type claimedElsewhere struct {
	broker.Store
	asked       *askedID
	other       <-chan struct{}
	gate        chan struct{}
	armed, once sync.Once
	ready       chan struct{}
}

func (s *claimedElsewhere) ClaimPlatformWork(ctx context.Context, id string, now time.Time, limit int, hold time.Duration) ([]broker.PlatformTask, error) {
	if id == "" || id != s.asked.get() {
		return s.Store.ClaimPlatformWork(ctx, id, now, limit, hold)
	}
	<-s.other
	tasks, err := s.Store.ClaimPlatformWork(ctx, id, time.Now(), limit, hold)
	s.armed.Do(func() { close(s.ready) })
	return tasks, err
}

// release opens the gate of the other instance's attempt on the first
// read after the ask's claim, once that read is done.
func (s *claimedElsewhere) release() {
	select {
	case <-s.ready:
		s.once.Do(func() { close(s.gate) })
	default:
	}
}

func (s *claimedElsewhere) Get(ctx context.Context, id string) (*broker.Question, error) {
	q, err := s.Store.Get(ctx, id)
	s.release()
	return q, err
}

func (s *claimedElsewhere) PlatformWork(ctx context.Context, id string) ([]broker.PlatformTask, error) {
	tasks, err := s.Store.PlatformWork(ctx, id)
	s.release()
	return tasks, err
}

// claimSignal is the other instance's store: it says when its outbox
// claimed a post of the question.
type claimSignal struct {
	broker.Store
	asked   *askedID
	claimed chan struct{}
	once    sync.Once
}

func (s *claimSignal) ClaimPlatformWork(ctx context.Context, id string, now time.Time, limit int, hold time.Duration) ([]broker.PlatformTask, error) {
	tasks, err := s.Store.ClaimPlatformWork(ctx, id, now, limit, hold)
	for _, x := range tasks {
		if x.Kind == broker.TaskPost && x.QuestionID == s.asked.get() {
			s.once.Do(func() { close(s.claimed) })
		}
	}
	return tasks, err
}

// An ask waits for the first attempt of its post even when another
// instance's outbox claimed the post before the ask's own attempt could:
// a target that refuses the question for good makes the ask answer
// unsupported, as when the ask posts itself, not pending.
func TestAskWaitsForAPostClaimedElsewhere(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}}

	asked := &askedID{}
	other := &claimSignal{Store: st, asked: asked, claimed: make(chan struct{})}
	mine := &claimedElsewhere{Store: st, asked: asked, other: other.claimed, gate: make(chan struct{}), ready: make(chan struct{})}
	creating := &createSpy{Store: mine, asked: asked}

	// The grace is long: it bounds the test, it is not waited out.
	b, err := broker.New(broker.Config{Store: creating, Routes: routes, Logger: slog.New(slog.DiscardHandler), Grace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, creating, outbox.Config{})
	t.Cleanup(b.Close)
	b.Register(&refusingChannel{gate: make(chan struct{})}) // never called: the other instance posts

	b2, err := broker.New(broker.Config{Store: other, Routes: routes, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b2, other, outbox.Config{Poll: 5 * time.Millisecond})
	refuses := &refusingChannel{gate: mine.gate}
	b2.Register(refuses)
	ctx, cancel := context.WithCancel(context.Background())
	outbox := make(chan struct{})
	go func() { b2.RunOutbox(ctx); close(outbox) }()
	t.Cleanup(func() { cancel(); <-outbox; b2.Close() })

	q, _, err := b.Ask(context.Background(), "agent", &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}})
	if err != nil {
		t.Fatal(err)
	}
	if q.Status != broker.StatusUnsupported {
		t.Fatalf("the ask answered %s (%q), want unsupported: the only target refused the question for good", q.Status, q.Reason)
	}
	refuses.mu.Lock()
	defer refuses.mu.Unlock()
	if refuses.posts != 1 {
		t.Fatalf("the other instance made %d attempts, want 1", refuses.posts)
	}
}

// askedID is the id of the question asked, which the stores of both
// instances look for.
type askedID struct {
	mu sync.Mutex
	id string
}

func (a *askedID) get() string { a.mu.Lock(); defer a.mu.Unlock(); return a.id }

// createSpy records the id of the question created.
type createSpy struct {
	broker.Store
	asked *askedID
}

func (s *createSpy) CreateCapped(ctx context.Context, q *broker.Question, inProcess []broker.Target, limit int) (*broker.Question, bool, error) {
	s.asked.mu.Lock()
	s.asked.id = q.ID
	s.asked.mu.Unlock()
	return s.Store.CreateCapped(ctx, q, inProcess, limit)
}
