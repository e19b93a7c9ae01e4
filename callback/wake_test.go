package callback

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// countingStore is the real store, counting the deliverer's claims.
type countingStore struct {
	broker.Store
	claims atomic.Int32
}

func (c *countingStore) ClaimDeliveries(ctx context.Context, now time.Time, limit int, hold time.Duration) ([]broker.Delivery, error) {
	c.claims.Add(1)
	return c.Store.ClaimDeliveries(ctx, now, limit, hold)
}

// Resolutions without a callback leave the outbox alone: with the poll
// out of the way, the deliverer claims once when it starts and again only
// for the one question that has a callback, which it delivers at once.
func TestClaimsOnlyForCallbacks(t *testing.T) {
	e := newEnv(t)
	cs := &countingStore{Store: e.st}
	rcv := newReceiver(t, func(http.ResponseWriter, int) int { return http.StatusOK })
	cfg := testConfig(20 * time.Millisecond)
	cfg.Poll = time.Hour
	run(t, New(cs, cfg, quiet()))
	waitFor(t, "the first claim", func() bool { return cs.claims.Load() == 1 })
	for range 20 {
		e.askAndAnswer(t, "")
	}
	for round := range 2 {
		for range 10 {
			e.askAndAnswer(t, "")
		}
		// The feed is read in order: once this delivery is made, the
		// hints of the questions before it were seen.
		q := e.askAndAnswer(t, rcv.URL)
		waitFor(t, "delivery of "+q.ID, func() bool { return e.delivery(t, q.ID).State == broker.DeliveryDelivered })
		if n, want := cs.claims.Load(), int32(round+2); n != want {
			t.Errorf("after %d resolutions of which %d had a callback: %d claims, want %d (at start, and one per callback)", 11*(round+1), round+1, n, want)
		}
	}
	if n := len(rcv.snapshot()); n != 2 {
		t.Errorf("receiver got %d requests, want 2", n)
	}
}

// Retries are sent when due, without the poll: the deliverer wakes at the
// time it scheduled.
func TestRetriesWithoutPolling(t *testing.T) {
	e := newEnv(t)
	rcv := newReceiver(t, func(_ http.ResponseWriter, n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	cfg := testConfig(50 * time.Millisecond)
	cfg.Poll = time.Hour
	d := New(e.st, cfg, quiet())
	run(t, d)
	q := e.askAndAnswer(t, rcv.URL)
	waitFor(t, "delivery of "+q.ID, func() bool { return e.delivery(t, q.ID).State == broker.DeliveryDelivered })
	if del := e.delivery(t, q.ID); del.Attempts != 3 {
		t.Errorf("delivered after %d attempts, want 3", del.Attempts)
	}
	waitFor(t, "the schedule to empty", func() bool { return d.due.len() == 0 })
}

func TestSchedule(t *testing.T) {
	s := newSchedule()
	t0 := time.Unix(1000, 0)
	if _, ok := s.next(); ok {
		t.Fatal("an empty schedule has a next time")
	}
	s.set("a", t0.Add(3*time.Second))
	s.set("b", t0.Add(time.Second))
	s.set("c", t0.Add(2*time.Second))
	s.set("b", t0.Add(5*time.Second)) // rescheduled: the earlier entry is stale
	s.drop("c")
	if got, _ := s.next(); !got.Equal(t0.Add(3 * time.Second)) {
		t.Errorf("next = %v, want a's time", got)
	}
	s.takeDue(t0.Add(4 * time.Second))
	if got, _ := s.next(); !got.Equal(t0.Add(5*time.Second)) || s.len() != 1 {
		t.Errorf("after taking what is due at +4s: next = %v, %d left; want b at +5s alone", got, s.len())
	}
	s.takeDue(t0.Add(5 * time.Second))
	if _, ok := s.next(); ok || s.len() != 0 {
		t.Errorf("after taking everything: %d left", s.len())
	}
}
