package broker

import (
	"context"
	"errors"
	"time"
)

// Wait blocks until the agent's question is resolved, its deadline moves
// (a snooze: it returns the question still pending, with the new
// ExpiresAt, so that the agent learns the new deadline at once), or ctx
// ends, and returns the question as it then stands (still pending when
// ctx ended first). While it waits it renews the question's lease, if it
// has one.
func (b *Broker) Wait(ctx context.Context, agent, id string) (*Question, error) {
	if q := b.known.settled(id, b.cfg.Now()); q != nil && q.Agent == agent {
		// Resolved here moments ago (known.go): the answer beat the
		// long-poll, and the question will not change any more.
		return q, nil
	}
	wake := b.addWaiter(id)
	defer b.removeWaiter(id, wake)
	// Reads outlive ctx: a wait that ends (deadline, drain) still reports
	// the question as it stands.
	//
	// A question asked here and still pending is remembered (known.go):
	// the wait starts on that copy, registered before it looked, so that
	// whatever changes the question wakes it to read the store.
	q := b.known.get(id)
	remembered := q != nil && q.Agent == agent
	if !remembered {
		var err error
		aside(func() { q, err = b.Get(context.WithoutCancel(ctx), agent, id) })
		if err != nil {
			return nil, err
		}
	}
	var renew <-chan time.Time
	if q.Lease > 0 && q.Status == StatusPending {
		// The agent is back: that renews the lease even when its wait
		// ends before the write does.
		aside(func() { b.renewLease(context.WithoutCancel(ctx), q) })
		t := time.NewTicker(q.Lease / 3)
		defer t.Stop()
		renew = t.C
	}
	expires := q.ExpiresAt
	for q.Status == StatusPending {
		select {
		case <-ctx.Done():
			if remembered {
				// What a wait returns is read from the store, never the
				// remembered copy (known.go).
				return b.Get(context.WithoutCancel(ctx), agent, id)
			}
			return q, nil
		case <-renew:
			aside(func() { b.renewLease(ctx, q) })
			continue
		case resolved := <-wake:
			if resolved != nil {
				// Resolved on this instance: the question is at hand.
				return resolved, nil
			}
		}
		var err error
		if aside(func() { q, err = b.store.Get(context.WithoutCancel(ctx), id) }); err != nil {
			return nil, err
		}
		remembered = false
		if !q.ExpiresAt.Equal(expires) {
			return q, nil // extended
		}
	}
	return q, nil
}

// aside runs work on a goroutine of its own and returns when it is done.
// A wait parks its caller's goroutine for as long as the question stays
// pending, with the stack it has grown by then: a store call (SQLite's or
// Redis's client code) doubles a goroutine's stack to 16 KiB, which
// thousands of parked waits would hold, while the frames of a parked wait
// fit in 8 KiB. The store call's goroutine ends with it and its stack
// goes back to the runtime at once.
func aside(work func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	<-done
}

func (b *Broker) renewLease(ctx context.Context, q *Question) {
	if err := b.store.RenewLease(ctx, q.ID, b.cfg.Now().Add(q.Lease)); err != nil && !errors.Is(err, ErrClosed) && ctx.Err() == nil {
		b.log.Warn("renew lease", "question_id", q.ID, "err", err)
	}
}

// RenewLease moves the lease of the agent's question forward, when it has
// one: long-polls call it.
func (b *Broker) RenewLease(ctx context.Context, q *Question) {
	if q.Lease > 0 && q.Status == StatusPending {
		// The agent is back: that renews the lease even when its wait
		// ends before the write does.
		b.renewLease(context.WithoutCancel(ctx), q)
	}
}

func (b *Broker) addWaiter(id string) chan *Question {
	c := make(chan *Question, 1)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiters[id] == nil {
		b.waiters[id] = map[chan *Question]struct{}{}
	}
	b.waiters[id][c] = struct{}{}
	return c
}

func (b *Broker) removeWaiter(id string, c chan *Question) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.waiters[id], c)
	if len(b.waiters[id]) == 0 {
		delete(b.waiters, id)
	}
}

// wake signals the waiters of id, or of every question when id is "".
// resolved, when not nil, is the question as this instance resolved it,
// handed to the waiters so that they need not read it again; nil asks
// them to re-read from the store (a hint from the resolution feed).
// Waiters share it and must not change it.
func (b *Broker) wake(id string, resolved *Question) {
	b.mu.Lock()
	defer b.mu.Unlock()
	signal := func(set map[chan *Question]struct{}) {
		for c := range set {
			select {
			case c <- resolved:
			default:
			}
		}
	}
	if id == "" {
		for _, set := range b.waiters {
			signal(set)
		}
		return
	}
	signal(b.waiters[id])
}

// startResolving notes that this instance is resolving id, until
// endResolving. The store publishes a resolution on its feed before its
// Resolve returns, so without this the feed's wake, which carries no
// question, would reach the waiters first and each would read the
// question back from the store, although the resolving call is about to
// hand it to them.
func (b *Broker) startResolving(id string) {
	b.mu.Lock()
	b.resolving[id]++
	b.mu.Unlock()
}

// endResolving ends a startResolving and wakes the waiters of id with
// resolved: the question as the store resolved it, or nil (read it
// again) when the call failed, since a resolution that beat it may have
// been published meanwhile and its wake left to this call.
func (b *Broker) endResolving(id string, resolved *Question) {
	b.mu.Lock()
	if b.resolving[id]--; b.resolving[id] <= 0 {
		delete(b.resolving, id)
	}
	b.mu.Unlock()
	b.wake(id, resolved)
}

// wakeFromFeed wakes the waiters of a resolution published on the store's
// feed (all of them for the empty id, the hint to re-check everything),
// unless a Resolve of this instance is under way for it: that call wakes
// them when it returns.
func (b *Broker) wakeFromFeed(id string) {
	if id != "" {
		b.mu.Lock()
		busy := b.resolving[id] > 0
		b.mu.Unlock()
		if busy {
			return
		}
	}
	b.wake(id, nil)
}

// Follow returns a channel that is signalled after each resolution of one
// of the agent's questions, here or (with a shared store) on another
// instance, and after a hint to re-check everything; stop ends it. A
// signal is a reason to re-read the event log: signals coalesce, and a
// resolution of another agent's question signals nothing. Run must be
// running.
func (b *Broker) Follow(agent string) (wake <-chan struct{}, stop func()) {
	c := make(chan struct{}, 1)
	b.mu.Lock()
	if b.followers[agent] == nil {
		b.followers[agent] = map[chan struct{}]struct{}{}
	}
	b.followers[agent][c] = struct{}{}
	b.mu.Unlock()
	return c, func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.followers[agent], c)
		if len(b.followers[agent]) == 0 {
			delete(b.followers, agent)
		}
	}
}

// wakeFollowers signals the followers of r's agent, or every follower
// when r names no agent.
func (b *Broker) wakeFollowers(r Resolved) {
	b.mu.Lock()
	defer b.mu.Unlock()
	signal := func(set map[chan struct{}]struct{}) {
		for c := range set {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
	if r.ID == "" || r.Agent == "" {
		for _, set := range b.followers {
			signal(set)
		}
		return
	}
	signal(b.followers[r.Agent])
}

// Waiting returns how many waits are under way on this instance.
func (b *Broker) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, set := range b.waiters {
		n += len(set)
	}
	return n
}
