package backoff

import (
	"context"
	"testing"
	"time"
)

func TestPausesGrowWithinTheirStepUpToTheCap(t *testing.T) {
	b := New(time.Second, 8*time.Second)
	steps := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}
	for round := range 50 {
		var last time.Duration
		for i, step := range steps {
			d := b.Next()
			if d < step/2 || d >= step {
				t.Fatalf("round %d: pause %d is %s, want within [%s, %s)", round, i+1, d, step/2, step)
			}
			if i > 0 && i < 4 && d <= last {
				t.Fatalf("round %d: pause %d (%s) did not grow from %s", round, i+1, d, last)
			}
			last = d
		}
		b.Reset()
	}
}

func TestResetStartsOver(t *testing.T) {
	b := New(100*time.Millisecond, time.Minute)
	for range 10 {
		b.Next()
	}
	b.Reset()
	if d := b.Next(); d >= 100*time.Millisecond {
		t.Fatalf("after Reset the pause is %s, want under the initial 100ms", d)
	}
}

func TestFullStaysBetweenBaseAndTheAttemptsStep(t *testing.T) {
	base, ceiling := time.Second, 10*time.Second
	for n, step := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 40: 10 * time.Second} {
		for range 50 {
			if d := Full(base, ceiling, n); d < base || d > step {
				t.Fatalf("Full(attempt %d) = %s, want within [%s, %s]", n, d, base, step)
			}
		}
	}
}

func TestWaitEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := New(time.Hour, time.Hour)
	if err := b.Wait(ctx); err != context.Canceled {
		t.Fatalf("Wait on an ended context = %v, want context.Canceled", err)
	}
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Fatalf("Sleep = %v", err)
	}
}

func TestBadBoundsAreMadeSafe(t *testing.T) {
	b := New(0, -time.Second)
	if d := b.Next(); d < 0 {
		t.Fatalf("pause %s from zero bounds", d)
	}
	if d := Jitter(1); d != 1 {
		t.Fatalf("Jitter(1ns) = %s", d)
	}
}
