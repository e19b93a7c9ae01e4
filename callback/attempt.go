package callback

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/backoff"
)

// attempt sends one claimed delivery and records the outcome.
func (d *Deliverer) attempt(ctx context.Context, j *job) {
	del := &j.del
	if err := d.cfg.Policy.Check(del.URL); err != nil {
		j.log.Warn("callback: URL no longer allowed", "err", err)
		d.finish(ctx, j, broker.DeliveryFailed, classBlocked+": the URL is not in callbacks.allow")
		return
	}
	secret := d.cfg.secret(del.Agent)
	if secret == "" {
		d.finish(ctx, j, broker.DeliveryFailed, fmt.Sprintf("no callback secret is configured for agent %q (callbacks.secrets or callbacks.secret_env)", del.Agent))
		return
	}
	q, err := d.st.Get(ctx, del.QuestionID)
	if errors.Is(err, broker.ErrNotFound) {
		d.finish(ctx, j, broker.DeliveryFailed, "the question no longer exists")
		return
	}
	if err != nil {
		if ctx.Err() != nil {
			// Shutting down before the attempt: hand it back at once.
			d.handBack(ctx, j)
			return
		}
		// The store is unreachable: the claim's hold runs out and the
		// delivery becomes due again.
		j.log.Warn("callback: read question", "err", err)
		return
	}
	body, err := json.Marshal(q.Result())
	if err != nil {
		d.finish(ctx, j, broker.DeliveryFailed, "encode result: "+err.Error())
		return
	}
	if left := time.Until(j.until); left < d.cfg.Timeout+recordMargin {
		// The claim was slow to come (a busy store) and too little of
		// it is left to send and record before another instance may
		// claim the delivery: sending now could make that a second send.
		j.log.Warn("callback: claim ends too soon for an attempt; handing the delivery back", "left", left.Round(time.Millisecond))
		d.handBack(ctx, j)
		return
	}
	del.Attempts++
	out := d.send(ctx, *del, body, secret)
	if ctx.Err() != nil {
		// Shutting down mid-attempt: not the receiver's fault. Make it
		// due at once for whichever instance runs next.
		del.Attempts--
		d.handBack(ctx, j)
		return
	}
	switch {
	case out.err == nil:
		del.LastError = ""
		d.finish(ctx, j, broker.DeliveryDelivered, "")
	case out.permanent:
		j.log.Warn("callback: receiver's answer is final", "attempt", del.Attempts, "err", out.err)
		d.finish(ctx, j, broker.DeliveryFailed, out.class)
	default:
		d.retry(ctx, j, out)
	}
}

// handBack makes a claimed delivery due at once without an attempt.
func (d *Deliverer) handBack(ctx context.Context, j *job) {
	j.del.NextAt = d.cfg.Now()
	d.record(ctx, j)
}

// retry schedules the next attempt, or gives up when it would fall after
// the window.
func (d *Deliverer) retry(ctx context.Context, j *job, out outcome) {
	del := &j.del
	now := d.cfg.Now()
	wait := max(d.backoff(del.Attempts), out.retryAfter)
	next := now.Add(wait)
	if end := del.CreatedAt.Add(d.cfg.Window); next.After(end) {
		j.log.Info("callback: last attempt failed", "attempt", del.Attempts, "err", out.err)
		d.finish(ctx, j, broker.DeliveryFailed,
			fmt.Sprintf("gave up after %d attempts in %s: %s", del.Attempts, d.cfg.Window, out.class))
		return
	}
	del.State, del.NextAt, del.LastError, del.UpdatedAt = broker.DeliveryPending, next, out.class, now
	d.m.retried.Inc()
	j.log.Info("callback: attempt failed; will retry", "attempt", del.Attempts, "err", out.err, "in", wait.Round(time.Millisecond))
	d.record(ctx, j)
}

// backoff is the pause after attempt n (1-based): drawn at random between
// BaseBackoff and min(MaxBackoff, BaseBackoff·2^(n-1)) ("full jitter"
// above a floor, so that attempts are never closer than BaseBackoff).
func (d *Deliverer) backoff(n int) time.Duration {
	return backoff.Full(d.cfg.BaseBackoff, d.cfg.MaxBackoff, n)
}

// finish records a final state.
func (d *Deliverer) finish(ctx context.Context, j *job, state, lastErr string) {
	del := &j.del
	del.State, del.UpdatedAt = state, d.cfg.Now()
	if lastErr != "" {
		del.LastError = lastErr
	}
	switch state {
	case broker.DeliveryDelivered:
		d.m.delivered.Inc()
		j.log.Info("callback delivered", "attempt", del.Attempts)
	case broker.DeliveryFailed:
		d.m.failed.Inc()
		j.log.Warn("callback failed; not retrying", "attempts", del.Attempts, "err", lastErr)
	}
	d.record(ctx, j)
}
