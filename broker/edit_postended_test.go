package broker_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// postEndsDuringEdit is the real store with one interleaving forced: the
// question's post is claimed by another instance as soon as the question
// exists, and that post ends (copy recorded, then task done) right after
// an edit attempt has listed the question's copies and found none.
type postEndsDuringEdit struct {
	broker.Store
	t     *testing.T
	mu    sync.Mutex
	post  broker.PlatformTask
	armed atomic.Bool
	once  sync.Once
}

func (s *postEndsDuringEdit) CreateCapped(ctx context.Context, q *broker.Question, inProcess []broker.Target, limit int) (*broker.Question, bool, error) {
	stored, created, err := s.Store.CreateCapped(ctx, q, inProcess, limit)
	if err == nil && created {
		tasks, cerr := s.Store.ClaimPlatformWork(ctx, q.ID, time.Now(), 10, time.Hour)
		if cerr != nil || len(tasks) != 1 {
			s.t.Errorf("claim the post as another instance: %v, %d tasks", cerr, len(tasks))
		} else {
			s.mu.Lock()
			s.post = tasks[0]
			s.mu.Unlock()
		}
	}
	return stored, created, err
}

func (s *postEndsDuringEdit) Messages(ctx context.Context, id string) ([]broker.MessageRef, error) {
	refs, err := s.Store.Messages(ctx, id)
	if s.armed.Load() {
		s.once.Do(func() {
			s.mu.Lock()
			post := s.post
			s.mu.Unlock()
			now := time.Now()
			if err := s.Store.AddMessage(ctx, id, broker.MessageRef{Channel: "chat", Chat: "c1", MessageID: "m1", PostedAt: now}); err != nil {
				s.t.Errorf("record the copy: %v", err)
			}
			post.State, post.Attempts, post.MessageID, post.UpdatedAt = broker.TaskDone, 1, "m1", now
			if err := s.Store.UpdatePlatformWork(ctx, post); err != nil {
				s.t.Errorf("finish the post: %v", err)
			}
		})
	}
	return refs, err
}

// An edit that finds no copy while the post is still under way, and then
// finds the post done (it ended between the two reads), edits the copy
// that post recorded instead of dropping the edit: the copy would
// otherwise never show the outcome.
func TestEditFindsTheCopyOfAPostThatJustEnded(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &postEndsDuringEdit{Store: st, t: t}
	b, err := broker.New(broker.Config{
		Store:  s,
		Routes: map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}},
		Logger: slog.New(slog.DiscardHandler),
		// The other instance never reports its post: the ask does not
		// wait for it long.
		Grace: 10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, s, outbox.Config{})
	ch := brokertest.NewChannel("chat")
	b.Register(ch)
	ctx := context.Background()
	q, _, err := b.Ask(ctx, "agent", dbQuestion())
	if err != nil {
		t.Fatal(err)
	}
	s.armed.Store(true)
	if _, err := b.Cancel(ctx, "agent", q.ID, "not needed"); err != nil {
		t.Fatal(err)
	}
	b.Close() // waits for the edit's attempt

	var shown []string
	for _, u := range ch.Updates() {
		if u.ID == q.ID {
			shown = append(shown, string(u.Status))
		}
	}
	if len(shown) != 1 || shown[0] != string(broker.StatusCancelled) {
		t.Fatalf("the copy was edited to %v, want the outcome once: [cancelled]", shown)
	}
}
