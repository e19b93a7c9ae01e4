package callback

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/backoff"
)

// recordMargin is the part of a claim kept for writing an attempt's
// outcome: an attempt starts only while Timeout plus this much of the
// claim is left.
const recordMargin = 2 * time.Second

// shutdownRecord bounds the writing of an outcome once Run is stopping;
// an outcome not written by then is left to the claim running out.
const shutdownRecord = 5 * time.Second

// job is one claimed delivery on its way through an attempt: the delivery
// as it will be recorded, and when this instance's claim on it ends (by
// the wall clock, measured from before the claim was asked for).
type job struct {
	del   broker.Delivery
	until time.Time
	log   *slog.Logger
}

// record writes the outcome in j.del to the store. A failed write (a
// store busy with other writers, a Redis failover) is tried again, with
// growing pauses, as long as the claim lasts: an outcome that is not
// written is lost when the claim runs out, and the delivery is then
// claimed and sent again. The store writes it only while the claim
// (j.del.Claim) is still the delivery's, so a late outcome never
// overwrites that of a later claim. While Run is stopping, writing is
// tried for shutdownRecord at most.
func (d *Deliverer) record(ctx context.Context, j *job) {
	if j.del.UpdatedAt.IsZero() {
		j.del.UpdatedAt = d.cfg.Now()
	}
	deadline := j.until
	if ctx.Err() != nil {
		deadline = earliest(deadline, time.Now().Add(shutdownRecord))
	}
	// The pauses do not end with ctx: at shutdown the outcome is still
	// worth recording, within shutdownRecord.
	retry := backoff.New(20*time.Millisecond, time.Second)
	pause := retry.Next()
	for try := 1; ; try++ {
		wctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		err := d.st.UpdateDelivery(wctx, j.del)
		cancel()
		switch {
		case err == nil:
			if j.del.State == broker.DeliveryPending {
				d.due.set(j.del.ID, j.del.NextAt)
			} else {
				d.due.drop(j.del.ID)
			}
			return
		case errors.Is(err, broker.ErrConflict):
			// The claim ran out and another claim took the delivery
			// (its outcome is the one to keep), or an earlier try of
			// this write went through although its answer was lost.
			j.log.Warn("callback: outcome not recorded: the delivery is no longer under this claim",
				"state", j.del.State, "attempt", j.del.Attempts, "tries", try)
			return
		case errors.Is(err, broker.ErrNotFound), errors.Is(err, broker.ErrInvalid):
			d.due.drop(j.del.ID)
			j.log.Error("callback: record delivery", "err", err)
			return
		case time.Until(deadline) <= pause:
			j.log.Error("callback: outcome not recorded before the claim ended; the delivery will be sent again",
				"state", j.del.State, "attempt", j.del.Attempts, "tries", try, "err", err)
			return
		}
		j.log.Warn("callback: record delivery; trying again", "try", try, "err", err)
		time.Sleep(pause)
		pause = retry.Next()
		if ctx.Err() != nil {
			deadline = earliest(deadline, time.Now().Add(shutdownRecord))
		}
	}
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
