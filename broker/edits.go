package broker

import (
	"context"
	"errors"
	"sync"
	"time"
)

// copyEdit is the edit of a question's copies under way; next is the
// newest version of the question that came in meanwhile, to be shown once
// the edit under way is done.
type copyEdit struct {
	next *Question
}

// editRank orders versions of a question for its copies: a resolution
// after every pending version, and a pending dialog by how many prompts
// have an answer. A version ranked below the one the copies show is stale.
func editRank(q *Question) int {
	if q.Status.Terminal() {
		return len(q.Prompts) + 1
	}
	return q.ProgressCount()
}

// updateCopies edits every posted copy of q in the background (after a
// dialog's answer, a toggle of a multi-select option, or the outcome);
// Close
// waits for them. The edits of one question run one version at a time,
// in the order the broker saw the versions: while one is under way the
// newest waits, and one older than what the copies show is dropped, so a
// progress edit that was slow can never cover the outcome a later edit
// showed. The edit of a resolved copy is retried with backoff while the
// platform is unreachable, so that no copy keeps live buttons after a
// resolution; progress edits of a pending dialog are not retried, since a
// later one supersedes them.
func (b *Broker) updateCopies(q *Question) {
	b.editMu.Lock()
	if e, busy := b.edits[q.ID]; busy {
		if e.next == nil || editRank(q) >= editRank(e.next) {
			e.next = q
		}
		b.editMu.Unlock()
		return
	}
	if b.edits == nil {
		b.edits = map[string]*copyEdit{}
	}
	e := &copyEdit{}
	b.edits[q.ID] = e
	b.editMu.Unlock()
	b.updates.Add(1)
	go func() {
		defer b.updates.Done()
		for cur := q; ; {
			b.editAll(cur)
			b.editMu.Lock()
			next := e.next
			e.next = nil
			if next == nil || editRank(next) < editRank(cur) {
				delete(b.edits, q.ID)
				b.editMu.Unlock()
				return
			}
			b.editMu.Unlock()
			cur = next
		}
	}()
}

// editAll edits every copy of q at once and returns when all are done.
// A pending version is read again first: two changes of the same rank
// (toggles of a multi-select prompt) may reach updateCopies in another
// order than the store applied them, and the copies must end showing
// the store's. A question resolved meanwhile is left to the edit of its
// resolution, which follows, so that the outcome is shown once.
func (b *Broker) editAll(q *Question) {
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.PostTimeout)
	if !q.Status.Terminal() {
		if fresh, err := b.store.Get(ctx, q.ID); err == nil && !fresh.Status.Terminal() && editRank(fresh) >= editRank(q) {
			q = fresh
		}
	}
	refs, err := b.store.Messages(ctx, q.ID)
	cancel()
	if err != nil {
		b.log.Error("update copies: list messages", "question_id", q.ID, "err", err)
		return
	}
	var wg sync.WaitGroup
	for _, m := range refs {
		if ch, ok := b.channels[m.Channel].(Updater); ok {
			wg.Go(func() { b.updateCopy(ch, q, m) })
		}
	}
	wg.Wait()
}

// updateCopy edits one copy, retrying failures that are not permanent
// until UpdateRetry has passed or the broker closes.
func (b *Broker) updateCopy(ch Updater, q *Question, m MessageRef) {
	giveUp := time.Now().Add(b.cfg.UpdateRetry)
	delay := time.Second
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), b.cfg.PostTimeout)
		err := ch.Update(ctx, q, m)
		cancel()
		log := b.log.With("question_id", q.ID, "channel", m.Channel, "chat", m.Chat, "attempt", attempt)
		switch {
		case err == nil:
			if attempt > 1 {
				log.Info("copy updated after retrying")
			}
			return
		case errors.Is(err, ErrPermanent), !q.Status.Terminal():
			log.Warn("update copy failed", "err", err)
			return
		case time.Now().Add(delay).After(giveUp):
			log.Error("update copy failed; giving up", "err", err, "after", b.cfg.UpdateRetry)
			return
		}
		log.Warn("update copy failed; will retry", "err", err, "in", delay)
		select {
		case <-b.closing.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, time.Minute)
	}
}
