package broker_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// localChannel is a test channel whose copies are made in-process, for
// every chat but "far".
type localChannel struct{ *brokertest.Channel }

func (localChannel) InProcess(chat string) bool { return chat != "far" }

// newMixedEnv is an env whose default route posts to an in-process
// channel ("local", chat "") and a remote one ("chat", chat "c1").
func newMixedEnv(t *testing.T) (*env, localChannel) {
	t.Helper()
	e := newEnv(t, map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "local"}, {Channel: "chat", Chat: "c1"}}},
	})
	l := localChannel{brokertest.NewChannel("local")}
	e.b.Register(l)
	return e, l
}

// The copy at an in-process target is posted, edited and reminded under
// by the broker itself, with no task in the store's outbox; it still shows
// as posted, is remembered for listings by channel, and the remote copy
// keeps its outbox tasks.
func TestInProcessCopiesSkipTheOutbox(t *testing.T) {
	e, l := newMixedEnv(t)
	ctx := context.Background()
	q := e.ask(t, dbQuestion())
	if len(l.Posts()) != 1 || l.Posts()[0].ID != q.ID {
		t.Fatalf("in-process posts = %d, want 1 of %s", len(l.Posts()), q.ID)
	}
	if !e.ch.WaitFor(5*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) == 1 }) {
		t.Fatalf("remote posts = %d, want 1", len(e.ch.Posts()))
	}
	waitCopies(t, e, q.ID, "chat:c1=posted", "local=posted")
	tasks, err := e.st.PlatformWork(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range tasks {
		if x.Target.Channel == "local" {
			t.Fatalf("task %+v for an in-process copy", x)
		}
	}
	listed, err := e.st.List(ctx, broker.Filter{Channel: "local", Status: broker.StatusPending})
	if err != nil || len(listed) != 1 || listed[0].ID != q.ID {
		t.Fatalf("listed by channel = %v, %v; want %s", listed, err, q.ID)
	}
	if err := e.b.Remind(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if got := l.Reminders(); len(got) != 1 {
		t.Fatalf("in-process reminders = %v, want 1", got)
	}
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+" 2")); !r.OK {
		t.Fatalf("answer: %+v", r)
	}
	ups := l.Updates()
	if len(ups) != 1 || ups[0].Status != broker.StatusAnswered {
		t.Fatalf("in-process updates = %v, want one answered", ups)
	}
	if !e.ch.WaitFor(5*time.Second, func(c *brokertest.Channel) bool { return len(c.Updates()) == 1 }) {
		t.Fatalf("remote updates = %d, want 1", len(e.ch.Updates()))
	}
	cs, err := e.b.Copies(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[1].Target.Channel != "local" || cs[1].State != broker.CopyPosted || cs[1].MessageID != q.ID || cs[1].Edit != broker.TaskDone {
		t.Fatalf("copies = %+v, want the local one posted and edited", cs)
	}
	tasks, _ = e.st.PlatformWork(ctx, q.ID)
	for _, x := range tasks {
		if x.Target.Channel == "local" {
			t.Fatalf("task %+v for an in-process copy after the answer", x)
		}
	}
}

// A question whose remote copy fails for good stays pending while its
// in-process copy is posted.
func TestInProcessCopyKeepsQuestionOpen(t *testing.T) {
	e, l := newMixedEnv(t)
	e.ch.Fail = map[string]error{"c1": errors.New("chat not found")}
	q := e.ask(t, dbQuestion())
	if q.Status != broker.StatusPending || len(l.Posts()) != 1 {
		t.Fatalf("question %s with %d in-process posts, want pending and 1", q.Status, len(l.Posts()))
	}
	waitCopies(t, e, q.ID, "chat:c1=failed", "local=posted")
	got, err := e.b.Get(context.Background(), "agent", q.ID)
	if err != nil || got.Status != broker.StatusPending {
		t.Fatalf("after the remote failure: %v, %v; want pending", got, err)
	}
}

// A chat the channel cannot take in-process goes through the outbox.
func TestInProcessOnlyForItsChats(t *testing.T) {
	e := newEnv(t, map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "local", Chat: "far"}}},
	})
	l := localChannel{brokertest.NewChannel("local")}
	e.b.Register(l)
	q := e.ask(t, dbQuestion())
	tasks, err := e.st.PlatformWork(context.Background(), q.ID)
	if err != nil || len(tasks) != 1 || tasks[0].Kind != broker.TaskPost {
		t.Fatalf("tasks = %+v, %v; want the post to local:far", tasks, err)
	}
	waitCopies(t, e, q.ID, "local:far=posted")
}

// listingChannel is an in-process channel that, while it posts a copy,
// lists the store by its own name, as the web inbox's page does when it
// reads its state: it records whether the question was listed then.
type listingChannel struct {
	*brokertest.Channel
	st     broker.Store
	mu     sync.Mutex
	listed []bool
}

func (*listingChannel) InProcess(string) bool { return true }

func (c *listingChannel) Post(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	qs, err := c.st.List(ctx, broker.Filter{Channel: c.Name(), Status: broker.StatusPending})
	found := false
	for _, x := range qs {
		found = found || x.ID == q.ID
	}
	c.mu.Lock()
	c.listed = append(c.listed, err == nil && found)
	c.mu.Unlock()
	return c.Channel.Post(ctx, q, chat)
}

// An in-process copy is recorded before it is posted, on every store:
// SQLite records it at Create, and on Redis the broker adds it first. A
// page that reads its state while the post is made already lists the
// question, so the web inbox keeps no question in memory.
func TestInProcessCopyIsListedBeforePost(t *testing.T) {
	stores := map[string]func(t *testing.T) broker.Store{
		"sqlite": func(t *testing.T) broker.Store {
			st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
		"redis": func(t *testing.T) broker.Store {
			st, err := redisstore.Open(context.Background(), redistest.Shared(t), slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			defer st.Close()
			b, err := broker.New(broker.Config{Store: st, Logger: slog.New(slog.DiscardHandler),
				Routes: map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "inbox"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			ch := &listingChannel{Channel: brokertest.NewChannel("inbox"), st: st}
			b.Register(ch)
			for range 3 {
				if _, _, err := b.Ask(context.Background(), "agent", dbQuestion()); err != nil {
					t.Fatal(err)
				}
			}
			ch.mu.Lock()
			defer ch.mu.Unlock()
			if len(ch.listed) != 3 {
				t.Fatalf("%d posts, want 3", len(ch.listed))
			}
			for i, ok := range ch.listed {
				if !ok {
					t.Fatalf("post %d: the question was not listed by channel while its copy was posted", i+1)
				}
			}
		})
	}
}
