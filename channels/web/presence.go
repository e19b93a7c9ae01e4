package web

import (
	"context"
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Presence is the part of the store that tells every instance whether an
// inbox page is open anywhere: the mark the conversations use to tell
// people whether a session listens (broker.Conversations), kept under a
// name no agent session has. broker.Store satisfies it.
type Presence interface {
	MarkListening(ctx context.Context, agent, session string, at, until time.Time) error
	ListenedAt(ctx context.Context, agent, session string, now time.Time) (time.Time, error)
}

// The presence mark: no agent is named "", so no session's mark is this
// one.
const (
	presenceAgent   = ""
	presenceSession = "web inbox pages"
)

// presenceTTL is how long the mark of an open page lasts: it is renewed
// every third of it while a page's event stream is open on this
// instance, so a page counts as watching until at most this long after
// its stream closed.
const presenceTTL = 45 * time.Second

// presence records this instance's open pages in the store, at most once
// every third of presenceTTL.
type presence struct {
	store Presence
	mu    sync.Mutex
	last  time.Time
	// readAt and seen are the last read of the mark: when, and the mark
	// it found (zero: none), so that a stream of asks reads the store at
	// most once per memoLife (watching).
	readAt, seen time.Time
}

// memoLife is how long Watched trusts the store's last answer that nobody
// watches: an inbox page opened on another instance, or a device
// subscribed there, counts at most this much later. A mark found stays
// trusted until it expires.
const memoLife = time.Second

// watching reports whether the mark of open pages lasts at now, reading
// the store only when its last answer is older than memoLife and found no
// mark that still lasts.
func (p *presence) watching(ctx context.Context, now time.Time) (bool, error) {
	p.mu.Lock()
	if !p.readAt.IsZero() && !now.Before(p.readAt) {
		if !p.seen.IsZero() && now.Before(p.seen.Add(presenceTTL)) {
			p.mu.Unlock()
			return true, nil
		}
		if now.Sub(p.readAt) < memoLife {
			p.mu.Unlock()
			return false, nil
		}
	}
	p.mu.Unlock()
	at, err := p.store.ListenedAt(ctx, presenceAgent, presenceSession, now)
	if err != nil {
		return false, err
	}
	p.mu.Lock()
	p.readAt, p.seen = now, at
	p.mu.Unlock()
	return !at.IsZero(), nil
}

// mark records that a page is open at now, unless a mark written lately
// still lasts long enough.
func (p *presence) mark(ctx context.Context, now time.Time) error {
	if p == nil || p.store == nil {
		return nil
	}
	p.mu.Lock()
	fresh := !p.last.IsZero() && now.Sub(p.last) < presenceTTL/3 && !now.Before(p.last)
	if !fresh {
		p.last = now
		p.readAt = time.Time{} // the next Watched reads the mark written here
	}
	p.mu.Unlock()
	if fresh {
		return nil
	}
	err := p.store.MarkListening(ctx, presenceAgent, presenceSession, now, now.Add(presenceTTL))
	if err != nil {
		p.mu.Lock()
		p.last = time.Time{}
		p.mu.Unlock()
	}
	return err
}

// markTimeout bounds one write of the mark, so that a page's stream never
// waits long on a store that does not answer.
const markTimeout = 2 * time.Second

// pageOpened marks the page whose event stream just opened. A failure is
// logged: the page works without the mark, and the next renewal tries
// again.
func (c *Channel) pageOpened(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, markTimeout)
	defer cancel()
	if err := c.presence.mark(ctx, c.now()); err != nil {
		c.log.Warn("recording an open inbox page", "err", err)
	}
}

// keepPresence renews the mark every third of presenceTTL while a page is
// open on this instance, until ctx ends.
func (c *Channel) keepPresence(ctx context.Context) {
	if c.presence == nil {
		return
	}
	t := time.NewTicker(presenceTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if c.hub.listening() {
			c.pageOpened(ctx)
		}
	}
}

// Watched reports whether an inbox page is open, here or on another
// instance sharing the store, or a push subscription reaches one of q's
// responders.
func (c *Channel) Watched(ctx context.Context, q *broker.Question, _ string) (bool, error) {
	if c.hub.listening() {
		return true, nil
	}
	if c.presence != nil {
		ok, err := c.presence.watching(ctx, c.now())
		if err != nil || ok {
			return ok, err
		}
	}
	if c.push != nil {
		return c.push.anyDevice(ctx, c.push.recipients(q))
	}
	return false, nil
}

// WatchedPlace is "the web inbox".
func (c *Channel) WatchedPlace() string { return "the web inbox" }
