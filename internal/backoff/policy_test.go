package backoff

import (
	"testing"
	"time"
)

// lowest and highest pin the random draw to the ends of its range, so
// that the policy's exact pauses can be checked.
func lowest(time.Duration) time.Duration    { return 0 }
func highest(n time.Duration) time.Duration { return n - 1 }

// TestPolicyExactPauses pins the random source: the pauses are exactly
// the lower and upper ends of each step, doubling to the cap, and Reset
// starts the schedule over.
func TestPolicyExactPauses(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name string
		draw func(time.Duration) time.Duration
		want []time.Duration
	}{
		{"lowest draw is half the step", lowest, []time.Duration{100 * ms, 200 * ms, 400 * ms, 500 * ms, 500 * ms}},
		{"highest draw is just under the step", highest, []time.Duration{200*ms - 1, 400*ms - 1, 800*ms - 1, 1000*ms - 1, 1000*ms - 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(200*ms, time.Second)
			b.draw = tt.draw
			for round := range 2 {
				for i, want := range tt.want {
					if got := b.Next(); got != want {
						t.Fatalf("round %d, pause %d = %s, want %s", round, i+1, got, want)
					}
				}
				b.Reset()
			}
		})
	}
}

// TestFullExactPauses pins the random source of Full: the lowest draw is
// always base, the highest the attempt's step, capped.
func TestFullExactPauses(t *testing.T) {
	base, ceiling := time.Second, 10*time.Second
	for n, step := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 5: 10 * time.Second} {
		if got := full(lowest, base, ceiling, n); got != base {
			t.Errorf("attempt %d, lowest draw: %s, want %s", n, got, base)
		}
		if got := full(highest, base, ceiling, n); got != step {
			t.Errorf("attempt %d, highest draw: %s, want %s", n, got, step)
		}
	}
}

// TestCapBelowInitialHoldsAtInitial: a ceiling under the first pause
// does not shrink it; the schedule stays at the initial step.
func TestCapBelowInitialHoldsAtInitial(t *testing.T) {
	b := New(time.Second, time.Millisecond)
	b.draw = highest
	for i := range 3 {
		if got := b.Next(); got != time.Second-1 {
			t.Fatalf("pause %d = %s, want just under 1s", i+1, got)
		}
	}
}
