package timeouts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/timeouts"
)

// TestRunSweepsAtOnceAndOnSchedule checks the scheduler: work that fell
// due while the bridge was down is done as Run starts, later work on the
// next tick, and Run returns when its context ends.
func TestRunSweepsAtOnceAndOnSchedule(t *testing.T) {
	e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
	overdue := e.ask(t, &broker.AskRequest{Question: "Overdue?", Timeout: dur(10 * time.Second), Default: broker.StringList{"yes"}})
	later := e.ask(t, &broker.AskRequest{Question: "Later?", Timeout: dur(time.Minute)})
	setAt(e.clock, 20*time.Second) // the bridge "was down" past the first deadline

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// The test's clock jumps, which no timer sees: a short MaxIdle has
	// Run look again soon after each jump.
	s := timeouts.New(e.broker, e.store, timeouts.Options{MaxIdle: time.Second, Logger: quiet})
	go func() { done <- s.Run(ctx) }()

	waitStatus(t, e, overdue.ID, broker.StatusTimedOut)
	if got := e.get(t, later.ID).Status; got != broker.StatusPending {
		t.Errorf("the question due later is %s, want pending", got)
	}
	setAt(e.clock, time.Minute)
	waitStatus(t, e, later.ID, broker.StatusTimedOut)

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// TestNewClampsOptions checks that a sweep interval below cron's floor
// still works (it becomes one second) and a zero batch gets the default.
func TestNewClampsOptions(t *testing.T) {
	e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
	q := e.ask(t, &broker.AskRequest{Question: "Q?", Timeout: dur(10 * time.Second)})
	setAt(e.clock, 10*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := timeouts.New(e.broker, e.store, timeouts.Options{Every: time.Millisecond, Batch: -1, Workers: -1, Logger: quiet})
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	waitStatus(t, e, q.ID, broker.StatusTimedOut)
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestSweepInBatches checks that a sweep keeps taking batches until it has
// ended every due question.
func TestSweepInBatches(t *testing.T) {
	for _, batch := range []int{1, 3, 7, 500} {
		e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
		for range 7 {
			e.ask(t, &broker.AskRequest{Question: "Q?", Timeout: dur(time.Minute)})
		}
		s := timeouts.New(e.broker, e.store, timeouts.Options{Batch: batch, Logger: quiet})
		st, err := s.Sweep(context.Background(), setAt(e.clock, time.Minute))
		if err != nil {
			t.Fatalf("batch %d: sweep: %v", batch, err)
		}
		if st.TimedOut != 7 {
			t.Errorf("batch %d: one sweep timed out %d of 7", batch, st.TimedOut)
		}
	}
}

func waitStatus(t *testing.T, e *env, id string, want broker.Status) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := e.get(t, id).Status
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("question %s is %s, want %s", id, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSweepReportsStoreFailure checks that a sweep on a store that cannot
// be used says so, and returns instead of retrying in place.
func TestSweepReportsStoreFailure(t *testing.T) {
	e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
	e.ask(t, &broker.AskRequest{Question: "Q?", Timeout: dur(time.Minute)})
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := e.sweeper.Sweep(context.Background(), setAt(e.clock, time.Hour))
	if !errors.Is(err, broker.ErrUnavailable) {
		t.Errorf("sweep on a closed store: %v, want store unavailable", err)
	}
	if st != (timeouts.Stats{}) {
		t.Errorf("sweep on a closed store did %+v", st)
	}
}
