package timeouts_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/store/sqlite"
	"github.com/askbridge/askbridge/timeouts"
)

// watchedStore tells when the sweeper first asked for the next due time
// (its first sweep is over then); a blind one cannot tell that time.
type watchedStore struct {
	*sqlite.Store
	blind bool
	asked chan struct{} // capacity 1
}

// NextScheduled signals asked and reports the store's next due time, or
// nothing scheduled when the store is blind.
func (s watchedStore) NextScheduled(ctx context.Context) (time.Time, bool, error) {
	select {
	case s.asked <- struct{}{}:
	default:
	}
	if s.blind {
		return time.Time{}, false, nil
	}
	return s.Store.NextScheduled(ctx)
}

// TestRunWakesOnTheStoresNextDueTime checks that a sweeper that would
// otherwise sleep for an hour sweeps when the store says the next entry
// of its schedule falls due: a lease that lapses while it sleeps.
func TestRunWakesOnTheStoresNextDueTime(t *testing.T) {
	e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
	q := e.ask(t, &broker.AskRequest{Question: "Still there?", Lease: dur(broker.MinLease)})
	runLapse(t, e, false, func() *broker.Question { return q })
}

// TestRunWakesWhenThisInstanceSchedules checks that a question asked on
// this instance while the sweeper sleeps wakes it in time, even when the
// store cannot tell its next due time and the sweeper would otherwise
// sleep for an hour.
func TestRunWakesWhenThisInstanceSchedules(t *testing.T) {
	e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
	runLapse(t, e, true, func() *broker.Question {
		return e.ask(t, &broker.AskRequest{Question: "Still there?", Lease: dur(broker.MinLease)})
	})
}

// runLapse runs a sweeper that sleeps up to an hour when nothing is due;
// after its first sweep it calls ask, moves the clock past the lease of
// the question ask returns, and waits until the sweeper cancelled it as
// abandoned.
func runLapse(t *testing.T, e *env, blind bool, ask func() *broker.Question) {
	t.Helper()
	st := watchedStore{Store: e.store, blind: blind, asked: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	s := timeouts.New(e.broker, st, timeouts.Options{MaxIdle: time.Hour, Logger: quiet})
	go func() { done <- s.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	<-st.asked // the first sweep is over: the sweeper sleeps
	q := ask()
	// The sweep at the lease's end runs on the test clock, which is moved
	// past it now; the real time the sweeper sleeps is what the lease had
	// left when it looked.
	setAt(e.clock, time.Minute)
	deadline := time.Now().Add(30 * time.Second)
	for e.get(t, q.ID).Status == broker.StatusPending {
		if time.Now().After(deadline) {
			t.Fatal("the sweeper did not wake when the lease lapsed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := e.get(t, q.ID); got.Status != broker.StatusCancelled || got.Reason != timeouts.AbandonedReason {
		t.Errorf("question is %s (%q), want cancelled as abandoned", got.Status, got.Reason)
	}
}
