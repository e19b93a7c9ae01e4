package broker

import (
	"context"
)

// updateCopies has every posted copy of q edited to show it: resolved
// (buttons gone, outcome, who, when) or, while pending, the progress of a
// dialog. A resolution's edits were queued by the store with it; progress
// edits are queued here. The outbox makes them, one attempt at a time per
// copy, each showing the question as it stands when the attempt starts,
// so that a slow edit can never cover the outcome a later one showed;
// edits that fail are retried for EditWindow.
func (b *Broker) updateCopies(q *Question) {
	if !q.Status.Terminal() {
		ctx, cancel := context.WithTimeout(context.Background(), b.cfg.PostTimeout)
		err := b.store.EnqueuePlatformWork(ctx, q.ID, TaskEdit, q.Targets, b.cfg.Now(), b.cfg.Now().Add(EditWindow))
		cancel()
		if err != nil {
			b.log.Error("update copies: queue edits", "question_id", q.ID, "err", err)
			return
		}
	}
	b.deliverNow(q.ID)
}
