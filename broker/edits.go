package broker

import (
	"context"
)

// updateCopies has every posted copy of q edited to show it: resolved
// (buttons gone, outcome, who, when) or, while pending, the progress of a
// dialog. The copies at in-process targets are edited here and now. A
// resolution's other edits were queued by the store with it; progress
// edits are queued here. The outbox makes them, one attempt at a time per
// copy, each showing the question as it stands when the attempt starts,
// so that a slow edit can never cover the outcome a later one showed;
// edits that fail are retried for EditWindow. When no copy goes through
// the outbox, it is not asked for anything.
func (b *Broker) updateCopies(q *Question) {
	local, remote := b.splitTargets(q.Targets)
	b.touchLocal(q, local, false)
	if !q.Status.Terminal() {
		if len(remote) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), b.cfg.PostTimeout)
		err := b.store.EnqueuePlatformWork(ctx, q.ID, TaskEdit, remote, b.cfg.Now(), b.cfg.Now().Add(EditWindow))
		cancel()
		if err != nil {
			b.log.Error("update copies: queue edits", "question_id", q.ID, "err", err)
			return
		}
	} else if len(remote) == 0 && len(q.State.Escalations) == 0 {
		// Only an escalation adds targets beside the route's.
		return
	}
	b.deliverNow(q.ID)
}
