package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// A client that hangs up while its question is being posted leaves the
// posts under way: every copy is posted, and the question stays pending.
func TestClientHangUpStillPosts(t *testing.T) {
	e := newEnv(t, nil)
	e.ch.PostDelay = 1500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	q, created, err := e.b.Ask(ctx, "agent", dbQuestion())
	if err != nil || !created {
		t.Fatalf("Ask: created %v, err %v", created, err)
	}
	if !e.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) == 2 }) {
		t.Fatalf("%d copies posted after the client hung up, want 2", len(e.ch.Posts()))
	}
	brokertest.WaitCopies(t, e.b, q.ID, "chat:c1=posted", "chat:c2=posted")
	got, err := e.b.Get(context.Background(), "agent", q.ID)
	if err != nil || got.Status != broker.StatusPending {
		t.Fatalf("question after the hang-up: %v, %v; want pending", got, err)
	}
	refs, _ := e.st.Messages(context.Background(), q.ID)
	if len(refs) != 2 {
		t.Fatalf("copies remembered = %v, want 2", refs)
	}
}

// A question asked while the platform is down stays pending, its copies
// retrying, and is posted once the platform is back.
func TestPostedAfterThePlatformComesBack(t *testing.T) {
	e := newEnv(t, nil)
	e.ch.SetDown(true)
	q := e.ask(t, dbQuestion())
	if q.Status != broker.StatusPending {
		t.Fatalf("question asked during an outage is %s, want pending", q.Status)
	}
	brokertest.WaitCopies(t, e.b, q.ID, "chat:c1=retrying", "chat:c2=retrying")
	cs, _ := e.b.Copies(context.Background(), q.ID)
	if cs[0].ErrorClass != "unreachable" || cs[0].Attempts < 1 {
		t.Fatalf("copy during the outage = %+v, want an unreachable error after an attempt", cs[0])
	}
	e.ch.SetDown(false)
	brokertest.WaitCopies(t, e.b, q.ID, "chat:c1=posted", "chat:c2=posted")
	if n := len(e.ch.Posts()); n != 2 {
		t.Fatalf("%d posts, want 2", n)
	}
}

// A question resolved while its platform is down has its copies edited
// to the outcome once the platform is back.
func TestResolvedDuringOutageEditedAfter(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, dbQuestion())
	brokertest.WaitCopies(t, e.b, q.ID, "chat:c1=posted", "chat:c2=posted")
	e.ch.SetDown(true)
	if r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 2")); !r.OK {
		t.Fatal(r.Text)
	}
	e.ch.SetDown(false)
	if !e.ch.WaitFor(15*time.Second, func(c *brokertest.Channel) bool { return len(c.Updates()) == 2 }) {
		t.Fatalf("%d copies edited after the platform came back, want 2", len(e.ch.Updates()))
	}
	for _, u := range e.ch.Updates() {
		if u.Status != broker.StatusAnswered {
			t.Fatalf("copy edited to %s, want answered", u.Status)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		cs, _ := e.b.Copies(context.Background(), q.ID)
		if len(cs) == 2 && cs[0].Edit == broker.TaskDone && cs[1].Edit == broker.TaskDone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("copies %+v: want both edits done", cs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countingChannel counts the posts per (question, chat) across brokers.
type countingChannel struct {
	*brokertest.Channel
	mu    sync.Mutex
	posts map[string]int
}

func (c *countingChannel) Post(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	c.mu.Lock()
	c.posts[q.ID+"/"+chat]++
	c.mu.Unlock()
	return c.Channel.Post(ctx, q, chat)
}

// Two instances on one store share the outbox: each copy is posted by one
// of them, once.
func TestTwoInstancesPostEachOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	ch := &countingChannel{Channel: brokertest.NewChannel("chat"), posts: map[string]int{}}
	var brokers []*broker.Broker
	var stores []*sqlite.Store
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := broker.New(broker.Config{Store: st, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		outbox.Attach(b, st, outbox.Config{Poll: 5 * time.Millisecond})
		b.Register(ch)
		brokers, stores = append(brokers, b), append(stores, st)
		wg.Go(func() { b.RunOutbox(ctx) })
	}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		for i, b := range brokers {
			b.Close()
			stores[i].Close()
		}
	})
	targets := []broker.Target{{Channel: "chat", Chat: "c1"}, {Channel: "chat", Chat: "c2"}}
	var ids []string
	for range 30 {
		q := brokertest.NewQuestion(broker.NewID(), "agent", time.Now())
		q.Targets = targets
		if _, _, err := stores[0].Create(context.Background(), q, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, q.ID)
	}
	for _, id := range ids {
		deadline := time.Now().Add(30 * time.Second)
		for {
			tasks, err := stores[1].PlatformWork(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if len(tasks) == 2 && tasks[0].State == broker.TaskDone && tasks[1].State == broker.TaskDone {
				for _, x := range tasks {
					if x.Attempts != 1 {
						t.Errorf("post %s of %s: %d attempts recorded, want 1", x.Target, id, x.Attempts)
					}
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("posts of %s never done: %+v", id, tasks)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	ch.mu.Lock()
	defer ch.mu.Unlock()
	for _, id := range ids {
		for _, tg := range targets {
			if n := ch.posts[id+"/"+tg.Chat]; n != 1 {
				t.Errorf("%s posted to %s %d times, want once", id, tg.Chat, n)
			}
		}
	}
}

// When every target refuses the question for good within the grace, the
// ask answers unsupported with each target's reason; the reasons stay on
// the copies.
func TestEveryTargetFailingForGoodIsUnsupported(t *testing.T) {
	e := newEnv(t, nil)
	e.ch.Fail = map[string]error{"c1": errors.New("chat not found"), "c2": errors.New("bot was kicked")}
	q := e.ask(t, dbQuestion())
	if q.Status != broker.StatusUnsupported {
		t.Fatalf("status %s, want unsupported", q.Status)
	}
	want := "no channel could take the question: chat:c1: chat not found; chat:c2: bot was kicked"
	if q.Reason != want {
		t.Fatalf("reason %q, want %q", q.Reason, want)
	}
	cs, _ := e.b.Copies(context.Background(), q.ID)
	if len(cs) != 2 || cs[0].State != broker.CopyFailed || cs[0].ErrorClass != "permanent" || cs[0].LastError != "chat not found" {
		t.Fatalf("copies = %+v, want two failed, the first with a permanent \"chat not found\"", cs)
	}
}

// A bridge stopped during a platform outage, after a question was
// resolved, leaves the edits in the store: the next bridge on the same
// store edits the copies once the platform is back.
func TestRestartedBridgeEditsAfterOutage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.db")
	ch := brokertest.NewChannel("chat")
	routes := map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}}
	start := func() (*broker.Broker, func()) {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := broker.New(broker.Config{Store: st, Routes: routes, Logger: slog.New(slog.DiscardHandler), Grace: 30 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		outbox.Attach(b, st, outbox.Config{Poll: 10 * time.Millisecond, BaseBackoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
		b.Register(ch)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { b.RunOutbox(ctx); close(done) }()
		return b, func() { cancel(); <-done; b.Close(); st.Close() }
	}
	first, stop := start()
	q, _, err := first.Ask(context.Background(), "agent", dbQuestion())
	if err != nil || len(ch.Posts()) != 1 {
		t.Fatalf("Ask: %v, %d posts; want one copy", err, len(ch.Posts()))
	}
	ch.SetDown(true)
	if r := first.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 2")); !r.OK {
		t.Fatal(r.Text)
	}
	if !ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return c.UpdateAttempts() >= 1 }) {
		t.Fatal("the edit was never attempted during the outage")
	}
	stop()
	if n := len(ch.Updates()); n != 0 {
		t.Fatalf("%d edits went through during the outage", n)
	}
	ch.SetDown(false)
	_, stop2 := start()
	defer stop2()
	if !ch.WaitFor(15*time.Second, func(c *brokertest.Channel) bool { return len(c.Updates()) == 1 }) {
		t.Fatalf("the restarted bridge never edited the copy (%d attempts)", ch.UpdateAttempts())
	}
	if got := ch.Updates()[0]; got.Status != broker.StatusAnswered {
		t.Fatalf("copy edited to %s, want answered", got.Status)
	}
}

// A post that keeps failing for a while gives up at the question's
// deadline: its copy shows failed, the class of the last failure apart,
// and "gave up after N attempts" before its text; with no target left, the
// question is resolved unsupported with that line as its reason.
func TestPostGivesUpAtTheDeadline(t *testing.T) {
	e := newEnv(t, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}})
	e.ch.SetDown(true)
	q := e.ask(t, dbQuestion())
	brokertest.WaitCopies(t, e.b, q.ID, "chat:c1=retrying")
	e.clock.Add(q.ExpiresAt.Sub(e.clock.Now()) + time.Second)
	brokertest.WaitCopies(t, e.b, q.ID, "chat:c1=failed")
	cs, _ := e.b.Copies(context.Background(), q.ID)
	text := "the platform could not be reached or did not take the call"
	want := fmt.Sprintf("gave up after %d attempts: %s", cs[0].Attempts, text)
	if cs[0].ErrorClass != "unreachable" || cs[0].LastError != want || cs[0].Attempts < 2 {
		t.Fatalf("copy = %+v, want class unreachable and last error %q after at least 2 attempts", cs[0], want)
	}
	// The attempt records the copy's failure, then resolves the question:
	// the question may still be pending when the copy already shows it.
	var got *broker.Question
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if got, err = e.b.Get(context.Background(), "agent", q.ID); err != nil {
			t.Fatal(err)
		}
		if got.Status != broker.StatusPending || time.Now().After(deadline) {
			break
		}
	}
	reason := fmt.Sprintf("no channel could take the question: chat:c1: gave up after %d attempts: unreachable: %s", cs[0].Attempts, text)
	if got.Status != broker.StatusUnsupported || got.Reason != reason {
		t.Fatalf("question = %s, %q; want unsupported, %q", got.Status, got.Reason, reason)
	}
}
