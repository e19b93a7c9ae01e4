package broker_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
)

// watched runs a wait the way a parked long-poll does: StartWait, Watch,
// then Poll each time it is notified. It returns the wait's outcome and
// how many notifications it took.
func watched(ctx context.Context, t *testing.T, b *broker.Broker, agent, id string) (<-chan *broker.Question, <-chan int) {
	t.Helper()
	w, err := b.StartWait(ctx, agent, id)
	if err != nil {
		t.Fatal(err)
	}
	if !w.Pending() {
		t.Fatal("the question is not pending")
	}
	notified := watch(ctx, w)
	got, polls := make(chan *broker.Question, 1), make(chan int, 1)
	go func() {
		for n := 0; ; n++ {
			q, done, err := w.Poll(ctx)
			if err != nil {
				t.Errorf("Poll: %v", err)
			}
			if done {
				got <- q
				polls <- n
				return
			}
			select {
			case <-notified:
			case <-time.After(30 * time.Second):
				t.Error("no notification in 30 s")
				got <- nil
				polls <- n
				return
			}
		}
	}()
	return got, polls
}

// watch watches w and ctx's end, as a parked long-poll does, and returns
// the channel its notifications arrive on.
func watch(ctx context.Context, w *broker.Waiting) <-chan struct{} {
	notified := make(chan struct{}, 1)
	notify := func() {
		select {
		case notified <- struct{}{}:
		default:
		}
	}
	w.Watch(notify)
	context.AfterFunc(ctx, notify)
	return notified
}

func TestAWatchedWaitEndsWithTheAnswer(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, dbQuestion())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, _ := watched(ctx, t, e.b, "agent", q.ID)
	if r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" 2")); !r.OK {
		t.Fatalf("answer: %s", r.Text)
	}
	w := <-got
	if w == nil || w.Status != broker.StatusAnswered || w.AnsweredBy == nil || w.AnsweredBy.User != "ana" {
		t.Fatalf("wait returned %+v, want answered by ana", w)
	}
	if n := e.b.Waiting(); n != 0 {
		t.Fatalf("%d waiters left after the wait ended", n)
	}
}

// An answer given on another instance reaches the wait as a hint of the
// store's feed: Poll reads the question and ends the wait.
func TestAWatchedWaitHearsOfAnAnswerElsewhere(t *testing.T) {
	here, elsewhere := twoInstances(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Here follows the store's feed.
	running := make(chan struct{})
	go func() { here.Run(ctx); close(running) }()
	defer func() { cancel(); <-running }()
	following(ctx, t, here, elsewhere)
	q, _, err := here.Ask(ctx, "agent", dbQuestion())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := watched(ctx, t, here, "agent", q.ID)
	if r := elsewhere.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + q.ID + " 2"}); !r.OK {
		t.Fatalf("answer elsewhere: %s", r.Text)
	}
	w := <-got
	if w == nil || w.Status != broker.StatusAnswered || w.AnsweredBy == nil || w.AnsweredBy.User != "ana" {
		t.Fatalf("wait returned %+v, want answered by ana", w)
	}
}

// following returns once here hears the store's feed: its Run takes the
// feed from the moment its goroutine subscribes, and a resolution
// published before that reaches no waiter here (the wait then reads the
// store only when its time is up). It answers questions elsewhere until
// a wait here is woken by one.
func following(ctx context.Context, t *testing.T, here, elsewhere *broker.Broker) {
	t.Helper()
	for try := 0; ; try++ {
		q, _, err := here.Ask(ctx, "agent", dbQuestion())
		if err != nil {
			t.Fatal(err)
		}
		wctx, stop := context.WithCancel(ctx)
		w, err := here.StartWait(wctx, "agent", q.ID)
		if err != nil {
			t.Fatal(err)
		}
		notified := watch(wctx, w)
		if r := elsewhere.HandleInbound(ctx, broker.Inbound{Channel: cli.Name, User: "ana", Name: "ana", Text: "/answer " + q.ID + " 2"}); !r.OK {
			t.Fatalf("answer elsewhere: %s", r.Text)
		}
		heard := false
		select {
		case <-notified:
			heard = true
		case <-time.After(100 * time.Millisecond):
		}
		// A wait not woken ends with its context, reading the store.
		stop()
		if _, done, err := w.Poll(wctx); err != nil || !done {
			t.Fatalf("the wait on an answered question: done %v, %v", done, err)
		}
		if heard {
			return
		}
		if try == 300 {
			t.Fatal("this instance never heard of an answer given elsewhere")
		}
	}
}

func TestAWatchedWaitEndsWithASnooze(t *testing.T) {
	e := newPolicyEnv(t, nil, broker.Policy{Snooze: &broker.SnoozePolicy{By: broker.Duration(30 * time.Minute), Max: 2}})
	q := e.ask(t, allowDeny())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, _ := watched(ctx, t, e.b, "agent", q.ID)
	if r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/snooze "+q.ID)); !r.OK {
		t.Fatalf("snooze: %+v", r)
	}
	w := <-got
	if w == nil || w.Status != broker.StatusPending || !w.ExpiresAt.Equal(q.ExpiresAt.Add(30*time.Minute)) || ctx.Err() != nil {
		t.Fatalf("wait returned %+v, want the pending question expiring at %v", w, q.ExpiresAt.Add(30*time.Minute))
	}
}

// A wait that ends still pending returns the whole question as the store
// has it, not the few fields the wait kept while it waited.
func TestAWaitThatEndsPendingReturnsTheWholeQuestion(t *testing.T) {
	for _, how := range []string{"Finish", "Poll"} {
		t.Run(how, func(t *testing.T) {
			here, elsewhere := twoInstances(t)
			ctx := context.Background()
			// Asked elsewhere: here the wait starts from a store read.
			q, _, err := elsewhere.Ask(ctx, "agent", dbQuestion())
			if err != nil {
				t.Fatal(err)
			}
			wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			var w *broker.Question
			if how == "Finish" {
				if w, err = here.Wait(wctx, "agent", q.ID); err != nil {
					t.Fatal(err)
				}
			} else {
				got, _ := watched(wctx, t, here, "agent", q.ID)
				w = <-got
			}
			if w == nil || w.Status != broker.StatusPending || len(w.Prompts) != 1 || w.Prompts[0].Question != q.Prompts[0].Question || len(w.Prompts[0].Options) != len(q.Prompts[0].Options) || !w.CreatedAt.Equal(q.CreatedAt) {
				t.Fatalf("wait returned %+v, want the whole pending question %+v", w, q)
			}
		})
	}
}

// A watched wait renews the question's lease while it waits, at a third
// of the lease, as Finish does.
func TestAWatchedWaitRenewsTheLease(t *testing.T) {
	e := newEnv(t, nil)
	req := dbQuestion()
	lease := broker.Duration(broker.MinLease)
	req.Lease = &lease
	q := e.ask(t, req)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := e.b.StartWait(ctx, "agent", q.ID)
	if err != nil {
		t.Fatal(err)
	}
	notified := watch(ctx, w)
	// The lease would have lapsed a minute from now.
	e.clock.Add(time.Minute)
	if lapsed, _ := e.st.LapsedLeases(ctx, e.clock.Now(), 10); len(lapsed) != 1 {
		t.Fatalf("lapsed before the renewal: %v, want the question", lapsed)
	}
	select {
	case <-notified:
	case <-time.After(2 * broker.MinLease):
		t.Fatal("no notification for the renewal")
	}
	if _, done, err := w.Poll(ctx); done || err != nil {
		t.Fatalf("Poll: done %v, %v", done, err)
	}
	if lapsed, _ := e.st.LapsedLeases(ctx, e.clock.Now(), 10); len(lapsed) != 0 {
		t.Fatalf("a watched question's lease lapsed: %v", lapsed)
	}
	cancel()
	<-notified // the context's end
	if q, done, err := w.Poll(ctx); !done || err != nil || q.Status != broker.StatusPending {
		t.Fatalf("Poll after the context ended: %v, done %v, %v", q, done, err)
	}
	if n := e.b.Waiting(); n != 0 {
		t.Fatalf("%d waiters left after the wait ended", n)
	}
}
