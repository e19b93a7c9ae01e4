package broker

import (
	"context"
	"fmt"
	"time"
)

// Limits of reminder points. Each reminder is a message on every platform
// a question was posted to, so a list of points is kept short and spread
// out: at most maxReminders points, each pair of successive points at least
// minReminderGap and minReminderGapShare of the timeout apart.
const (
	maxReminders        = 5
	minReminderGap      = time.Minute
	minReminderGapShare = 0.05
)

// ValidateReminders checks reminder points: fractions of the time to the
// deadline, each strictly between 0 and 1, increasing, at most
// maxReminders of them, successive ones at least 5 % of the timeout apart
// and, when timeout is not zero, at least minReminderGap apart. A zero
// timeout means it is not known yet (the minute is checked at ask time).
// field names the list in errors ("reminders", "routes.ops.reminders").
func ValidateReminders(field string, points []float64, timeout time.Duration) error {
	if len(points) > maxReminders {
		return fieldErr(field, "at most %d points, got %d", maxReminders, len(points))
	}
	for i, p := range points {
		f := fmt.Sprintf("%s[%d]", field, i)
		if !(p > 0 && p < 1) {
			return fieldErr(f, "a reminder point is a fraction of the time to the deadline, strictly between 0 and 1 (0.5 = half-way), got %v", p)
		}
		if i == 0 {
			continue
		}
		prev := points[i-1]
		if p <= prev {
			return fieldErr(f, "reminder points must increase")
		}
		if !farEnough(prev, p, timeout) {
			if timeout == 0 {
				return fieldErr(f, "%v is too close to %v: successive reminder points must be at least 5%% of the timeout (and %s) apart", p, prev, shortDuration(english, minReminderGap))
			}
			gap := time.Duration((p - prev) * float64(timeout)).Round(time.Second)
			return fieldErr(f, "%v is only %s after %v with a timeout of %s: successive reminder points must be at least %s and 5%% of the timeout apart", p, shortDuration(english, gap), prev, shortDuration(english, timeout), shortDuration(english, minReminderGap))
		}
	}
	return nil
}

// farEnough reports whether reminder point b is far enough after a for
// timeout (the minute is not checked when timeout is zero).
func farEnough(a, b float64, timeout time.Duration) bool {
	const slack = 1e-9 // 0.15 - 0.1 is 0.04999999999999999
	need := minReminderGapShare
	if timeout > 0 {
		need = max(need, float64(minReminderGap)/float64(timeout))
	}
	return b-a >= need-slack
}

// spacedReminders returns the points of an inherited list (the route's or
// the bridge's) that keep minReminderGap and 5 % of timeout after the
// last point kept. A short timeout thus gets fewer reminders: with the
// default 0.5 and 0.9 and a timeout under 2.5 minutes, only the reminder
// half-way is sent. A question's own list is checked instead, by
// ValidateReminders, and refused when too dense.
func spacedReminders(points []float64, timeout time.Duration) []float64 {
	var out []float64
	for _, p := range points {
		if len(out) > 0 && !farEnough(out[len(out)-1], p, timeout) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// Remind sends a reminder under every copy of a pending question whose
// channel can nudge: at once for the copies in this process; for the
// others it queues the reminders and makes the first attempts, waiting for them at
// most the outbox's grace; the outbox retries failures until the
// deadline.
func (b *Broker) Remind(ctx context.Context, id string) error {
	q, err := b.store.Get(ctx, id)
	if err != nil {
		return err
	}
	if q.Status != StatusPending {
		return &ClosedError{Question: q}
	}
	var targets []Target
	for _, t := range q.Targets {
		if ch, ok := b.channels[t.Channel]; ok {
			if _, ok := ch.(Reminder); ok {
				targets = append(targets, t)
			}
		}
	}
	local, targets := b.splitTargets(targets)
	b.touchLocal(q, local, true)
	if len(targets) == 0 {
		return nil
	}
	if err := b.store.EnqueuePlatformWork(ctx, id, TaskRemind, targets, b.cfg.Now(), q.ExpiresAt); err != nil {
		return err
	}
	// The first attempts are made now, as the sweeper expects of a
	// reminder it marked sent; failures are retried by the outbox.
	grace := time.NewTimer(b.cfg.Grace)
	defer grace.Stop()
	select {
	case <-b.deliverNow(id):
	case <-grace.C:
	case <-ctx.Done():
	}
	return nil
}
