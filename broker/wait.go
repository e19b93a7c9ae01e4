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
// has one. It is StartWait followed by Waiting.Finish.
func (b *Broker) Wait(ctx context.Context, agent, id string) (*Question, error) {
	w, err := b.StartWait(ctx, agent, id)
	if err != nil {
		return nil, err
	}
	return w.Finish(ctx)
}

// A Waiting is a wait that StartWait began: it listens for the question's
// resolution from the moment it was made, so the question cannot resolve
// unseen between StartWait and the rest of the wait, which may run on
// another goroutine (a long-poll that hands its connection over while it
// waits, api).
//
// The rest is Finish, which blocks, or Watch and Poll, for a caller that
// waits for something else at the same time (a connection's next byte)
// and wants no goroutine of its own for the wait.
type Waiting struct {
	b         *Broker
	agent, id string
	wake      chan *Question
	// q is the question when the wait is over at its start; while it
	// is on, only the question's deadline and lease are kept, so that
	// thousands of waits do not each hold a decoded question.
	q       *Question
	expires time.Time
	lease   time.Duration

	// Watch's notifications.
	renewAt    time.Time
	renewTimer *time.Timer
}

// StartWait begins a wait on the agent's question id: it starts listening
// for its resolution, reads the question and renews its lease. When the
// question is no longer pending the wait is over already (Pending is
// false, Finish returns it at once).
func (b *Broker) StartWait(ctx context.Context, agent, id string) (*Waiting, error) {
	if q := b.known.settled(id, b.cfg.Now()); q != nil && q.Agent == agent {
		// Resolved here moments ago (known.go): the answer beat the
		// long-poll, and the question will not change any more.
		return &Waiting{b: b, agent: agent, id: id, q: q}, nil
	}
	w := &Waiting{b: b, agent: agent, id: id, wake: b.addWaiter(id)}
	// Reads outlive ctx: a wait that ends (deadline, drain) still reports
	// the question as it stands.
	//
	// A question asked here and still pending is remembered (known.go):
	// the wait starts on that copy, registered before it looked, so that
	// whatever changes the question wakes it to read the store.
	w.q = b.known.get(id)
	remembered := w.q != nil && w.q.Agent == agent
	if !remembered {
		var err error
		aside(func() { w.q, err = b.Get(context.WithoutCancel(ctx), agent, id) })
		if err != nil {
			w.stop()
			return nil, err
		}
	}
	if w.q.Status != StatusPending {
		w.stop()
		return w, nil
	}
	w.expires, w.lease = w.q.ExpiresAt, w.q.Lease
	if w.lease > 0 {
		// The agent is back: that renews the lease even when its wait
		// ends before the write does.
		aside(func() { b.renewLease(context.WithoutCancel(ctx), id, w.lease) })
	}
	w.q = nil
	return w, nil
}

// stop stops listening for the question's resolution.
func (w *Waiting) stop() {
	if w.wake != nil {
		w.b.removeWaiter(w.id, w.wake)
		w.wake = nil
	}
	if w.renewTimer != nil {
		w.renewTimer.Stop()
	}
}

// Pending reports whether the question was still pending when the wait
// began: whether Finish has anything to wait for.
func (w *Waiting) Pending() bool { return w.wake != nil }

// Finish waits as Wait does, from the moment StartWait began, and
// returns the question as it then stands. It is called once, and not
// with Poll.
func (w *Waiting) Finish(ctx context.Context) (*Question, error) {
	if w.wake == nil {
		return w.q, nil
	}
	q, _, err := w.wait(ctx, nil)
	return q, err
}

// FinishWithin is Finish for at most d: when the question is still
// pending then, it reports false and the wait goes on listening, to be
// finished by Finish, or Watch and Poll.
func (w *Waiting) FinishWithin(ctx context.Context, d time.Duration) (*Question, bool, error) {
	if w.wake == nil {
		return w.q, true, nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	return w.wait(ctx, t.C)
}

// wait waits on the calling goroutine until the wait is over (true) or
// within fires (false).
func (w *Waiting) wait(ctx context.Context, within <-chan time.Time) (*Question, bool, error) {
	var renew <-chan time.Time
	if w.lease > 0 {
		t := time.NewTicker(w.lease / 3)
		defer t.Stop()
		renew = t.C
	}
	for {
		select {
		case <-ctx.Done():
			w.stop()
			q, err := w.ended(ctx)
			return q, true, err
		case <-within:
			return nil, false, nil
		case <-renew:
			aside(func() { w.b.renewLease(ctx, w.id, w.lease) })
		case resolved := <-w.wake:
			if q, done, err := w.woken(ctx, resolved); done {
				w.stop()
				return q, true, err
			}
		}
	}
}

// Watch has notify called whenever the question may have changed (its
// resolution, a hint of it) or a lease renewal is due; the caller then
// calls Poll, and calls it too when its context for the wait ends.
// notify must not block. Watch is called once, for a pending wait, and
// not with Finish.
func (w *Waiting) Watch(notify func()) {
	if w.lease > 0 {
		w.renewAt = time.Now().Add(w.lease / 3)
		w.renewTimer = time.AfterFunc(w.lease/3, notify)
	}
	w.b.notifyWaiter(w.id, w.wake, notify)
}

// Poll does what is due of a wait that Watch notifies, without
// blocking: it reports true, with the question as it then stands, when
// the wait is over.
func (w *Waiting) Poll(ctx context.Context) (*Question, bool, error) {
	if w.wake == nil {
		return w.q, true, nil
	}
	select {
	case resolved := <-w.wake:
		if q, done, err := w.woken(ctx, resolved); done {
			w.stop()
			return q, true, err
		}
	default:
	}
	if ctx.Err() != nil {
		w.stop()
		q, err := w.ended(ctx)
		return q, true, err
	}
	if w.renewTimer != nil && !time.Now().Before(w.renewAt) {
		aside(func() { w.b.renewLease(ctx, w.id, w.lease) })
		w.renewAt = time.Now().Add(w.lease / 3)
		w.renewTimer.Reset(w.lease / 3)
	}
	return nil, false, nil
}

// woken handles a signal of the question: resolved is the question as
// this instance resolved it, or nil for a hint to read it again. The
// wait is over (done) when the question is no longer pending or its
// deadline moved (a snooze: the agent learns the new deadline at once).
func (w *Waiting) woken(ctx context.Context, resolved *Question) (q *Question, done bool, err error) {
	if resolved != nil {
		// Resolved on this instance: the question is at hand.
		return resolved, true, nil
	}
	if aside(func() { q, err = w.b.store.Get(context.WithoutCancel(ctx), w.id) }); err != nil {
		return nil, true, err
	}
	if q.Status != StatusPending || !q.ExpiresAt.Equal(w.expires) {
		return q, true, nil
	}
	return nil, false, nil
}

// ended is what a wait returns when ctx ends with the question still
// pending: the question as the store has it. What a wait returns is
// never a remembered copy (known.go), nor the few fields kept while
// waiting.
func (w *Waiting) ended(ctx context.Context) (*Question, error) {
	return w.b.Get(context.WithoutCancel(ctx), w.agent, w.id)
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

func (b *Broker) renewLease(ctx context.Context, id string, lease time.Duration) {
	if err := b.store.RenewLease(ctx, id, b.cfg.Now().Add(lease)); err != nil && !errors.Is(err, ErrClosed) && ctx.Err() == nil {
		b.log.Warn("renew lease", "question_id", id, "err", err)
	}
}

// RenewLease moves the lease of the agent's question forward, when it has
// one: long-polls call it.
func (b *Broker) RenewLease(ctx context.Context, q *Question) {
	if q.Lease > 0 && q.Status == StatusPending {
		// The agent is back: that renews the lease even when its wait
		// ends before the write does.
		b.renewLease(context.WithoutCancel(ctx), q.ID, q.Lease)
	}
}

func (b *Broker) addWaiter(id string) chan *Question {
	c := make(chan *Question, 1)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.waiters[id] == nil {
		b.waiters[id] = map[chan *Question]func(){}
	}
	b.waiters[id][c] = nil
	return c
}

// notifyWaiter has f called each time the waiter c of id is signalled,
// and at once when it has been already.
func (b *Broker) notifyWaiter(id string, c chan *Question, f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if set := b.waiters[id]; set != nil {
		if _, ok := set[c]; ok {
			set[c] = f
		}
	}
	if len(c) > 0 {
		f()
	}
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
	signal := func(set map[chan *Question]func()) {
		for c, notify := range set {
			select {
			case c <- resolved:
			default:
			}
			if notify != nil {
				notify()
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
