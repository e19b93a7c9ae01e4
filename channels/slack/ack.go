package slack

import (
	"context"
	"net/http"
	"time"
)

// defaultAckWithin is how long a delivery waits for its action to be
// recorded before it is acknowledged anyway: Slack gives up on a delivery
// that is not acknowledged within 3 s (and shows the person an error, or
// redelivers an event), so this leaves a second for the network.
const defaultAckWithin = 2 * time.Second

// followUp is what remains to do for an action once the broker has
// recorded it and the delivery was acknowledged: telling the person the
// outcome, opening a modal. Nil means nothing.
type followUp func(ctx context.Context)

func (f followUp) run(ctx context.Context) {
	if f != nil {
		f(ctx)
	}
}

// all runs fs in order.
func all(fs []followUp) followUp {
	return func(ctx context.Context) {
		for _, f := range fs {
			f.run(ctx)
		}
	}
}

// record hands a delivery's action to the broker in the background and
// then runs its follow-up; the returned channel is closed once the
// action is recorded. The work runs on a context of its own, bounded by
// processTimeout, which the end of the delivery (its request, a shutdown)
// does not cancel: Slack was, or is about to be, told it arrived. Run
// waits for it.
func (c *Channel) record(ctx context.Context, fn func(ctx context.Context) followUp) <-chan struct{} {
	recorded := make(chan struct{})
	c.work.Add(1)
	go func() {
		defer c.work.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), processTimeout)
		defer cancel()
		var then followUp
		if fn != nil {
			then = fn(ctx)
		}
		close(recorded)
		then.run(ctx)
	}()
	return recorded
}

// awaitRecorded returns when the action is recorded, when c.ackWithin has
// passed (the delivery is then acknowledged before its action is
// recorded, since a late acknowledgement is a failure in Slack's eyes),
// or when gone is closed (nobody is waiting for the acknowledgement).
func (c *Channel) awaitRecorded(recorded, gone <-chan struct{}) {
	t := time.NewTimer(c.ackWithin)
	defer t.Stop()
	select {
	case <-recorded:
	case <-gone:
	case <-t.C:
		c.throttled.Warn("slow ack", "slack delivery acknowledged before its action was recorded; recording goes on", "waited", c.ackWithin)
	}
}

// recordThenAck answers an HTTP delivery with 200 once record has handed
// its action to the broker, so that a crash between the two cannot lose
// a tap Slack was told had arrived; see awaitRecorded for when it answers
// sooner. The person's reply follows the acknowledgement.
func (c *Channel) recordThenAck(w http.ResponseWriter, r *http.Request, fn func(ctx context.Context) followUp) {
	c.awaitRecorded(c.record(r.Context(), fn), r.Context().Done())
	w.WriteHeader(http.StatusOK)
}
