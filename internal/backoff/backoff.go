package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff hands out growing pauses between attempts. It is not safe for
// concurrent use: each retry loop owns one.
type Backoff struct {
	initial, max, step time.Duration
	// draw returns a random duration in [0, n); tests pin it.
	draw func(n time.Duration) time.Duration
}

// random draws from math/rand/v2's source, safe for concurrent use.
func random(n time.Duration) time.Duration { return rand.N(n) }

// New returns a Backoff whose first pause is at most initial and whose
// pauses stop growing at ceiling.
func New(initial, ceiling time.Duration) *Backoff {
	initial = max(initial, time.Nanosecond)
	return &Backoff{initial: initial, max: max(ceiling, initial), step: initial, draw: random}
}

// Next returns the pause before the next attempt, drawn from
// [step/2, step), and doubles the step up to the cap.
func (b *Backoff) Next() time.Duration {
	d := jitter(b.draw, b.step)
	b.step = min(2*b.step, b.max)
	return d
}

// Reset starts over from the initial pause, after a success.
func (b *Backoff) Reset() { b.step = b.initial }

// Wait sleeps the next pause and returns nil, or returns ctx's error as
// soon as ctx ends.
func (b *Backoff) Wait(ctx context.Context) error { return Sleep(ctx, b.Next()) }

// Jitter returns a pause drawn from [d/2, d): at least half of d, so that
// a pause never collapses to nothing.
func Jitter(d time.Duration) time.Duration { return jitter(random, d) }

func jitter(draw func(time.Duration) time.Duration, d time.Duration) time.Duration {
	if d < 2 {
		return d
	}
	return d/2 + draw(d-d/2)
}

// Full returns the pause after attempt n (1-based) of a schedule that
// starts at base and doubles up to ceiling, drawn at random between base
// and that attempt's step ("full jitter" above a floor, so that attempts
// are never closer than base). Durable retries that count their attempts
// in a store use it instead of a Backoff.
func Full(base, ceiling time.Duration, n int) time.Duration {
	return full(random, base, ceiling, n)
}

func full(draw func(time.Duration) time.Duration, base, ceiling time.Duration, n int) time.Duration {
	step := base
	for i := 1; i < n && step < ceiling; i++ {
		step *= 2
	}
	step = min(step, ceiling)
	if step <= base {
		return base
	}
	return base + draw(step-base+1)
}

// Sleep waits for d, or returns ctx's error as soon as ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
