package broker

import (
	"sync"
	"time"
)

// knownMax bounds the pending questions an instance remembers: at most
// this many of the latest asked here, about 1–2 KiB each. settledMax
// bounds the questions resolved here that it keeps (settle), which also
// hold their answers: an agent's long-poll comes back within moments of
// an answer, so these cover the agents waiting at once, not a backlog.
const (
	knownMax   = 1024
	settledMax = 256
)

// MinRetention is the shortest time a store keeps a resolved question
// before a purge may remove it (store.retention); settledFor is how long
// after its resolution a question resolved here is served from memory,
// well inside it, so that no question is served after a purge removed it.
const (
	MinRetention = time.Minute
	settledFor   = MinRetention / 2
)

// known remembers the pending questions asked on this instance as it
// stored them, so that the commonest cycle (an ask, the agent's wait, an
// answer, all here) need not read the question back from the store twice.
//
// A remembered question may be behind the store, and is used only where
// that cannot change an outcome:
//
//   - An answer is accepted on it only when it would be accepted on the
//     store's copy too. What decides an answer is fixed at the ask or only
//     widens later: the prompt, the policy, the targets and responders
//     (an escalation adds some), the deadline (a snooze moves it later).
//     The answer is then recorded by the store's compare-and-set, which
//     refuses it if the question closed meanwhile, with the same reply a
//     fresh read would have given. Anything that would refuse the answer
//     is decided on a fresh read instead (answerKnown).
//   - A wait starts on it: the waiter is registered before it looks, and
//     every change that ends a wait (a resolution, an extension, here or
//     on another instance through the store's feed) forgets the question
//     before it wakes the waiters, so a waiter that saw the old copy is
//     woken and reads the store. A wait that ends still pending reads the
//     store too, so what it returns is never the remembered copy.
//
// Every change made here forgets the question (forget), and so does
// every hint of the feed; the oldest are forgotten beyond knownMax.
//
// known also keeps the questions resolved here (settle), as the store's
// Resolve returned them, for settledFor after their resolution. A
// resolved question never changes in the store (every write is a
// compare-and-set on a pending question) until a purge removes it, and
// no purge removes a question resolved less than MinRetention ago, so a
// settled copy is the store's: the long-poll that arrives after the
// answer, the commonest case when an answer is quick, and a read of the
// result need not read the question back (settled).
type known struct {
	mu   sync.Mutex
	byID map[string]*Question
	// ring holds the ids in the order they were remembered; next is the
	// slot the next one takes, forgetting the id that was there.
	ring []string
	next int
	// done, doneRing and doneNext are the same for the settled questions.
	done     map[string]*Question
	doneRing []string
	doneNext int
}

func newKnown() *known {
	return &known{
		byID: make(map[string]*Question, knownMax), ring: make([]string, knownMax),
		done: make(map[string]*Question, settledMax), doneRing: make([]string, settledMax),
	}
}

// settle keeps q, a question the store has just resolved, which callers
// must not change afterwards.
func (k *known) settle(q *Question) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.done[q.ID]; ok {
		return
	}
	if old := k.doneRing[k.doneNext]; old != "" {
		delete(k.done, old)
	}
	k.doneRing[k.doneNext] = q.ID
	k.doneNext = (k.doneNext + 1) % len(k.doneRing)
	k.done[q.ID] = q
}

// settled returns question id as it was resolved here, when that was
// less than settledFor before now; nil otherwise. It is shared: callers
// must not change it.
func (k *known) settled(id string, now time.Time) *Question {
	k.mu.Lock()
	q := k.done[id]
	k.mu.Unlock()
	if q == nil {
		return nil
	}
	if age := now.Sub(q.ResolvedAt); age < 0 || age >= settledFor {
		return nil
	}
	return q
}

// remember keeps q, which callers must not change afterwards.
func (k *known) remember(q *Question) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if old := k.ring[k.next]; old != "" {
		delete(k.byID, old)
	}
	k.ring[k.next] = q.ID
	k.next = (k.next + 1) % len(k.ring)
	k.byID[q.ID] = q
}

// get returns the remembered question id, or nil. It is shared: callers
// must not change it.
func (k *known) get(id string) *Question {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.byID[id]
}

// forget drops the pending question id, or every pending question when
// id is "". The settled questions stay: they no longer change.
func (k *known) forget(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if id == "" {
		clear(k.byID)
		return
	}
	delete(k.byID, id)
}
