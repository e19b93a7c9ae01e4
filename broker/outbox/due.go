package outbox

import (
	"context"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// nextWake returns when the outbox loop looks again after a claim:
// when the store's next task falls due (NextPlatformWork), MaxIdle at
// most; Poll when the store fails to tell, or when a task is already due
// that the claim did not take (no free slot, or it fell due since): an
// ending attempt wakes the loop sooner, and the loop never spins on such
// a task.
func (o *Outbox) nextWake(ctx context.Context) time.Time {
	now := time.Now()
	if ctx.Err() != nil {
		return now.Add(o.cfg.Poll)
	}
	at, ok, err := o.store.NextPlatformWork(ctx)
	switch {
	case err != nil:
		if ctx.Err() == nil {
			o.log.Warn("platform outbox: read the next due time", "err", err)
		}
		return now.Add(o.cfg.Poll)
	case !ok:
		return now.Add(o.cfg.MaxIdle)
	case !at.After(now):
		return now.Add(o.cfg.Poll)
	}
	return minTime(at, now.Add(o.cfg.MaxIdle))
}

// noteDue tells the outbox loop that t's attempt left it due again at
// t.NextAt (a retry, or a pacing slot), so that the loop does not sleep
// past it: the attempt may have been a direct one (DeliverNow), made
// after the loop last read the store.
func (o *Outbox) noteDue(t broker.PlatformTask) {
	if !broker.TaskFinished(t.State) {
		o.due.Note(t.NextAt)
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
