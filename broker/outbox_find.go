package broker

import (
	"context"
	"errors"
	"log/slog"
	"time"
)

// mayHavePosted reports whether an earlier attempt of the post task t may
// have reached the platform without its outcome being recorded: the last
// recorded attempt timed out or lost its connection (the platform may
// have taken the message before the answer was lost), or nothing was
// recorded for longer than a claim's hold, so a claim may have run out
// with its attempt under way (the instance died). A first attempt, a
// refusal and a rate limit are known not to have posted.
func (b *Broker) mayHavePosted(t PlatformTask, now time.Time) bool {
	if t.Attempts > 0 && t.ErrorClass.mayHaveReached() {
		return true
	}
	return !t.UpdatedAt.IsZero() && now.Sub(t.UpdatedAt) >= b.taskHold()
}

// findCopy looks for the copy of q that an earlier attempt of t may have
// posted, on channels that can search for it (Finder). found is true with
// the copy's reference; err is a failure of the search that retrying can
// fix. A search that fails for good (the bot may not read the history) is
// logged and the post made, which may leave a second copy.
func (b *Broker) findCopy(ctx context.Context, log *slog.Logger, t PlatformTask, q *Question, ch Channel) (ref MessageRef, found bool, err error) {
	f, ok := ch.(Finder)
	if !ok || !b.mayHavePosted(t, time.Now()) {
		return MessageRef{}, false, nil
	}
	fctx, cancel := context.WithTimeout(ctx, b.cfg.PostTimeout)
	defer cancel()
	ref, found, err = f.FindCopy(fctx, q, t.Target.Chat)
	switch {
	case errors.Is(err, ErrPermanent):
		log.Warn("platform outbox: cannot look for an earlier copy; posting", "err", err)
		return MessageRef{}, false, nil
	case err != nil:
		return MessageRef{}, false, err
	case found:
		log.Info("platform outbox: found the copy an earlier attempt posted", "message_id", ref.MessageID)
	}
	return ref, found, nil
}
