package timeouts_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/timeouts"
)

// TestLeaseLapse checks that a question whose agent stops renewing its
// lease is cancelled, and one whose agent keeps renewing it is not.
func TestLeaseLapse(t *testing.T) {
	tests := []struct {
		name string
		// renew runs with the clock at +renewAt and renews the lease
		// (nil: the agent is silent after asking).
		renewAt  time.Duration
		renew    func(t *testing.T, e *env, q *broker.Question) (stop func())
		alive    time.Duration // a sweep here finds the question pending
		lapsesAt time.Duration // a sweep here cancels it
	}{
		{name: "the agent goes silent", alive: 59 * time.Second, lapsesAt: 60 * time.Second},
		{
			name: "a long-poll renews the lease", renewAt: 50 * time.Second,
			renew: func(t *testing.T, e *env, q *broker.Question) func() {
				e.broker.RenewLease(context.Background(), q)
				return func() {}
			},
			alive: 109 * time.Second, lapsesAt: 110 * time.Second,
		},
		{
			name: "a blocking wait renews the lease while it waits", renewAt: 40 * time.Second,
			renew: func(t *testing.T, e *env, q *broker.Question) func() {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					if _, err := e.broker.Wait(ctx, "a1", q.ID); err != nil {
						t.Errorf("wait: %v", err)
					}
				}()
				// Wait renews as soon as it starts: lease until +100s.
				want := start.Add(100 * time.Second)
				deadline := time.Now().Add(5 * time.Second)
				for !e.get(t, q.ID).LeaseUntil.Equal(want) {
					if time.Now().After(deadline) {
						t.Fatalf("the waiting agent did not renew the lease to %s (it is %s)", want, e.get(t, q.ID).LeaseUntil)
					}
					time.Sleep(10 * time.Millisecond)
				}
				return func() { cancel(); <-done }
			},
			alive: 99 * time.Second, lapsesAt: 100 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
			q := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: options("Postgres", "SQLite"), Lease: dur(time.Minute)})
			if !q.LeaseUntil.Equal(start.Add(time.Minute)) {
				t.Fatalf("lease until %s, want %s", q.LeaseUntil, start.Add(time.Minute))
			}
			if tt.renew != nil {
				setAt(e.clock, tt.renewAt)
				stop := tt.renew(t, e, q)
				st := e.sweep(t, tt.alive)
				stop()
				if st != (timeouts.Stats{}) {
					t.Fatalf("sweep at +%s while the lease was renewed did %+v, want nothing", tt.alive, st)
				}
			} else if st := e.sweep(t, tt.alive); st != (timeouts.Stats{}) {
				t.Fatalf("sweep at +%s did %+v, want nothing", tt.alive, st)
			}
			if got := e.get(t, q.ID).Status; got != broker.StatusPending {
				t.Fatalf("at +%s the question is %s, want pending", tt.alive, got)
			}

			if st := e.sweep(t, tt.lapsesAt); st.Abandoned != 1 {
				t.Fatalf("sweep at +%s = %+v, want one abandoned", tt.lapsesAt, st)
			}
			got := e.get(t, q.ID)
			if got.Status != broker.StatusCancelled || got.Reason != "the asking agent is gone" {
				t.Errorf("after the lease lapsed the question is %s (%q), want cancelled (\"the asking agent is gone\")", got.Status, got.Reason)
			}
			at := start.Add(tt.lapsesAt).Format("15:04 MST")
			if out := e.outcomes(t, q.ID); len(out) != 1 || out[0] != "Cancelled at "+at+": the asking agent is gone" {
				t.Errorf("the posted copy says %q, want \"Cancelled at %s: the asking agent is gone\"", out, at)
			}
			if st := e.sweep(t, tt.lapsesAt+time.Hour); st != (timeouts.Stats{}) {
				t.Errorf("a later sweep did %+v, want nothing", st)
			}
		})
	}
}

// TestNoLeaseNeverLapses checks that questions asked without a lease wait
// for their deadline whatever the agent does.
func TestNoLeaseNeverLapses(t *testing.T) {
	e := newEnv(t, broker.Config{ReminderPoints: []float64{}})
	q := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: options("Postgres", "SQLite")})
	if st := e.sweep(t, 29*time.Minute); st != (timeouts.Stats{}) {
		t.Errorf("sweep at +29m did %+v, want nothing", st)
	}
	if got := e.get(t, q.ID).Status; got != broker.StatusPending {
		t.Errorf("question without a lease is %s at +29m, want pending", got)
	}
}
