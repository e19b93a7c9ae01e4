package telegram

import (
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// The channel keeps a little state in memory. None of it is the record:
// the store is. Losing it (a restart) costs convenience, not answers.

const (
	maxCached      = 1000
	otherPromptTTL = 24 * time.Hour
	recentUpdateN  = 1024
)

// otherPrompt is a force-reply message that asked for free text: the
// answer of a prompt without options, or (note) the one box of a prompt
// with options, whose reply is held until an option, Submit or "Send as
// my answer" is tapped.
type otherPrompt struct {
	ref broker.PromptRef
	// note is set when the reply is held, not sent as the answer.
	note bool
	// message is the question message, whose keyboard shows a held note.
	message int
}

type chatMessage struct {
	chat int64
	msg  int
}

// noteKey names a prompt of a question.
type noteKey struct {
	id     string
	prompt int
}

// otherPrompts maps the force-reply messages sent after "Other…" to the
// question prompt they ask about, so that the reply becomes
// broker.FormatOther.
type otherPrompts = memo[chatMessage, otherPrompt]

func newOtherPrompts() *otherPrompts { return newMemo[chatMessage, otherPrompt](otherPromptTTL) }

// heldNotes keeps the text people typed in the reply box of a prompt
// with options ("Other or note…"), until the button that sends it is
// tapped: an option or Submit with it as the note, or "Send as my
// answer". Like the ticked options in the store, it belongs to the
// question, not to one person. Text lost in a restart is said so when
// the button is tapped; nothing is sent without it.
type heldNotes = memo[noteKey, string]

func newHeldNotes() *heldNotes { return newMemo[noteKey, string](otherPromptTTL) }

// memo is a small map that forgets: an entry lives for ttl, and when the
// map holds maxCached entries an arbitrary one goes (a bound, not a
// policy).
type memo[K comparable, V any] struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[K]memoEntry[V]
}

type memoEntry[V any] struct {
	v  V
	at time.Time
}

func newMemo[K comparable, V any](ttl time.Duration) *memo[K, V] {
	return &memo[K, V]{ttl: ttl, m: map[K]memoEntry[V]{}}
}

func (c *memo[K, V]) put(k K, v V, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for old, e := range c.m {
		if now.Sub(e.at) > c.ttl {
			delete(c.m, old)
		}
	}
	if len(c.m) >= maxCached {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = memoEntry[V]{v: v, at: now}
}

func (c *memo[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	return e.v, ok
}

func (c *memo[K, V]) drop(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// recentUpdates remembers the last update ids handled, so that an update
// Telegram delivers to the webhook again is handled once.
type recentUpdates struct {
	mu   sync.Mutex
	ids  map[int]bool
	ring []int
	next int
}

func newRecentUpdates() *recentUpdates {
	return &recentUpdates{ids: map[int]bool{}, ring: make([]int, 0, recentUpdateN)}
}

// add records id and reports whether it is new.
func (r *recentUpdates) add(id int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ids[id] {
		return false
	}
	if len(r.ring) < recentUpdateN {
		r.ring = append(r.ring, id)
	} else {
		delete(r.ids, r.ring[r.next])
		r.ring[r.next] = id
		r.next = (r.next + 1) % recentUpdateN
	}
	r.ids[id] = true
	return true
}
