package outbox

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// mayHavePosted reports whether an earlier attempt of the post task t may
// have reached the platform without its outcome being recorded: the last
// recorded attempt timed out or lost its connection (the platform may
// have taken the message before the answer was lost), or nothing was
// recorded for longer than a claim's hold, so a claim may have run out
// with its attempt under way (the instance died). A first attempt, a
// refusal and a rate limit are known not to have posted.
func (o *Outbox) mayHavePosted(t broker.PlatformTask, now time.Time) bool {
	if t.Attempts > 0 && t.ErrorClass.MayHaveReached() {
		return true
	}
	return !t.UpdatedAt.IsZero() && now.Sub(t.UpdatedAt) >= o.taskHold()
}

// findCopy looks for the copy of q that an earlier attempt of t may have
// posted, on channels that can search for it (broker.Finder). found is
// true with the copy's reference; err is a failure of the search that
// retrying can fix. A search that fails for good (the bot may not read the history) is
// logged and the post made, which may leave a second copy.
func (o *Outbox) findCopy(ctx context.Context, log *slog.Logger, t broker.PlatformTask, q *broker.Question, ch broker.Channel) (ref broker.MessageRef, found bool, err error) {
	f, ok := ch.(broker.Finder)
	if !ok || !o.mayHavePosted(t, time.Now()) {
		return broker.MessageRef{}, false, nil
	}
	fctx, cancel := context.WithTimeout(ctx, o.postTimeout)
	defer cancel()
	ref, found, err = f.FindCopy(fctx, q, t.Target.Chat)
	switch {
	case errors.Is(err, broker.ErrPermanent):
		log.Warn("platform outbox: cannot look for an earlier copy; posting", "err", err)
		return broker.MessageRef{}, false, nil
	case err != nil:
		return broker.MessageRef{}, false, err
	case found:
		log.Info("platform outbox: found the copy an earlier attempt posted", "message_id", ref.MessageID)
	}
	return ref, found, nil
}
