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

func TestRetryAfterError(t *testing.T) {
	if broker.RetryAfter(time.Second, nil) != nil {
		t.Errorf("RetryAfter of no error is an error")
	}
	base := errors.New("telegram: post question abc: Too Many Requests: retry after 3")
	err := fmt.Errorf("attempt: %w", broker.RetryAfter(3*time.Second, base))
	if d, ok := broker.RetryAfterOf(err); !ok || d != 3*time.Second {
		t.Errorf("RetryAfterOf = %s, %v; want 3s, true", d, ok)
	}
	if !errors.Is(err, broker.ErrRateLimited) || !errors.Is(err, base) || errors.Is(err, broker.ErrPermanent) {
		t.Errorf("%v: want rate limited, wrapping the channel's error, not permanent", err)
	}
	if err.Error() != "attempt: "+base.Error() {
		t.Errorf("Error() = %q", err.Error())
	}
	if d, ok := broker.RetryAfterOf(broker.RetryAfter(-time.Second, base)); !ok || d != 0 {
		t.Errorf("a negative wait = %s, %v; want 0, true", d, ok)
	}
	if _, ok := broker.RetryAfterOf(base); ok {
		t.Errorf("a plain error reads as rate limited")
	}
}

// limitedChannel answers the first posts with a 429 asking for after,
// each after delay (the platform's round trip), and records when every
// post call began.
type limitedChannel struct {
	*brokertest.Channel
	after, delay time.Duration

	mu      sync.Mutex
	refuse  int
	calls   []time.Time
	refused []time.Time
}

func (c *limitedChannel) Post(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	c.mu.Lock()
	c.calls = append(c.calls, time.Now())
	refuse := c.refuse > 0
	if refuse {
		c.refuse--
		c.refused = append(c.refused, time.Now())
	}
	c.mu.Unlock()
	if refuse {
		time.Sleep(c.delay)
		return broker.MessageRef{}, broker.RetryAfter(c.after, errors.New("429 Too Many Requests"))
	}
	return c.Channel.Post(ctx, q, chat)
}

// callsAfter checks that every post call after the first refused one
// began at least c.after later.
func (c *limitedChannel) callsAfter(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.refused) == 0 {
		t.Fatal("no post was refused")
	}
	first := c.refused[0]
	for _, at := range c.calls {
		if at.After(first) && at.Sub(first) < c.after {
			t.Errorf("a post call came %s after the 429, inside its retry_after of %s", at.Sub(first), c.after)
		}
	}
}

// newPacedBrokers starts n brokers on one SQLite file with the chat
// channel ch paced, each running its outbox.
func newPacedBrokers(t *testing.T, n int, ch broker.Channel, perChat time.Duration) []*broker.Broker {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b.db")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var out []*broker.Broker
	var stores []*sqlite.Store
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		for i, b := range out {
			b.Close()
			stores[i].Close()
		}
	})
	for range n {
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		b, err := broker.New(broker.Config{Store: st, Logger: slog.New(slog.DiscardHandler),
			Routes: map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}}})
		if err != nil {
			st.Close()
			t.Fatal(err)
		}
		outbox.Attach(b, st, outbox.Config{Poll: 20 * time.Millisecond, Pacing: map[string]outbox.Pacing{"chat": {PerChat: perChat}}})
		b.Register(ch)
		out, stores = append(out, b), append(stores, st)
		wg.Go(func() { b.RunOutbox(ctx) })
	}
	return out
}

// waitPosted waits until ch has posted n copies, and checks that each
// question in ids was posted once.
func waitPosted(t *testing.T, ch *limitedChannel, ids []string) {
	t.Helper()
	if !ch.WaitFor(15*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) >= len(ids) }) {
		t.Fatalf("%d of %d questions posted", len(ch.Posts()), len(ids))
	}
	seen := map[string]int{}
	for _, q := range ch.Posts() {
		seen[q.ID]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Errorf("question %s posted %d times, want once", id, seen[id])
		}
	}
}

// A post refused with a retry_after is recorded as an attempt, rate
// limited, and posted once after the wait; the other instance on the
// store keeps off the chat until then too.
func TestRateLimitedPostWaitsOnEveryInstance(t *testing.T) {
	ch := &limitedChannel{Channel: brokertest.NewChannel("chat"), after: time.Second, refuse: 1}
	bs := newPacedBrokers(t, 2, ch, 10*time.Millisecond)
	q1, _, err := bs[0].Ask(context.Background(), "agent", dbQuestion())
	if err != nil || q1.Status != broker.StatusPending {
		t.Fatalf("ask: %v", err)
	}
	// Either instance may make the first attempt: the other's loop can
	// claim the post before the ask's own attempt does.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		cs, err := bs[0].Copies(context.Background(), q1.ID)
		if err == nil && len(cs) == 1 && cs[0].Attempts > 0 {
			if cs[0].State != broker.TaskRetrying || cs[0].ErrorClass != "rate limited" || cs[0].Attempts != 1 {
				t.Fatalf("copy after a 429 = %+v, want retrying, rate limited, after 1 attempt", cs)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("copy after a 429 = %+v (%v), want retrying, rate limited, after 1 attempt", cs, err)
		}
	}
	req := dbQuestion()
	req.SessionID = "s2"
	q2, _, err := bs[1].Ask(context.Background(), "agent", req)
	if err != nil || q2.Status != broker.StatusPending {
		t.Fatalf("ask on the other instance: %v", err)
	}
	waitPosted(t, ch, []string{q1.ID, q2.ID})
	ch.callsAfter(t)
}

// A call that took its pacing slot before another call to the chat was
// refused with a retry_after does not use that slot inside the wait: it
// takes a new one after it.
func TestSlotTakenBeforeA429IsTakenAgain(t *testing.T) {
	ch := &limitedChannel{Channel: brokertest.NewChannel("chat"), after: time.Second, delay: 150 * time.Millisecond, refuse: 1}
	bs := newPacedBrokers(t, 1, ch, 300*time.Millisecond)
	ids := make([]string, 2)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() {
			req := dbQuestion()
			req.SessionID = fmt.Sprint("s", i)
			q, _, err := bs[0].Ask(context.Background(), "agent", req)
			if err != nil {
				t.Errorf("ask: %v", err)
				return
			}
			ids[i] = q.ID
		})
	}
	wg.Wait()
	waitPosted(t, ch, ids)
	ch.callsAfter(t)
}
