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

// questionCache holds the questions this instance posted or updated,
// for the "Other…" button's prompt. Resolved questions leave it.
type questionCache struct {
	mu sync.Mutex
	m  map[string]*broker.Question
}

func newQuestionCache() *questionCache {
	return &questionCache{m: map[string]*broker.Question{}}
}

func (c *questionCache) put(q *broker.Question) {
	if q == nil {
		return
	}
	cp := q.Clone()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCached {
		for id := range c.m { // drop an arbitrary entry: a bound, not a policy
			delete(c.m, id)
			break
		}
	}
	c.m[q.ID] = cp
}

func (c *questionCache) get(id string) *broker.Question {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[id]
}

func (c *questionCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// otherPrompt is a force-reply message that asked for free text: an
// answer, or (note) a note to hold until the choice is tapped.
type otherPrompt struct {
	q      *broker.Question
	prompt int
	at     time.Time
	// note is set when the reply is a note for the choice, not an answer.
	note bool
	// message is the question message, whose keyboard shows a held note.
	message int
}

type chatMessage struct {
	chat int64
	msg  int
}

// otherPrompts maps the force-reply messages sent after "Other…" to the
// question prompt they ask about, so that the reply becomes
// broker.FormatOther.
type otherPrompts struct {
	mu sync.Mutex
	m  map[chatMessage]otherPrompt
}

func newOtherPrompts() *otherPrompts { return &otherPrompts{m: map[chatMessage]otherPrompt{}} }

func (o *otherPrompts) put(chat int64, msg int, p otherPrompt) {
	now := p.at
	o.mu.Lock()
	defer o.mu.Unlock()
	for k, v := range o.m {
		if now.Sub(v.at) > otherPromptTTL {
			delete(o.m, k)
		}
	}
	if len(o.m) >= maxCached {
		for k := range o.m {
			delete(o.m, k)
			break
		}
	}
	o.m[chatMessage{chat, msg}] = p
}

func (o *otherPrompts) get(chat int64, msg int) (otherPrompt, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p, ok := o.m[chatMessage{chat, msg}]
	return p, ok
}

func (o *otherPrompts) drop(chat int64, msg int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.m, chatMessage{chat, msg})
}

// noteKey names a prompt of a question.
type noteKey struct {
	id     string
	prompt int
}

type heldNote struct {
	text string
	at   time.Time
}

// heldNotes keeps the notes people typed after "Other…" (with options
// ticked) or "Note…", until the option or Done button that sends the
// choice with the note is tapped. Like the ticked options in the store,
// a note belongs to the question, not to one person. A note lost in a
// restart is said so when the button is tapped; nothing is sent without
// it.
type heldNotes struct {
	mu sync.Mutex
	m  map[noteKey]heldNote
}

func newHeldNotes() *heldNotes { return &heldNotes{m: map[noteKey]heldNote{}} }

func (h *heldNotes) put(id string, prompt int, text string, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, v := range h.m {
		if now.Sub(v.at) > otherPromptTTL {
			delete(h.m, k)
		}
	}
	if len(h.m) >= maxCached {
		for k := range h.m {
			delete(h.m, k)
			break
		}
	}
	h.m[noteKey{id, prompt}] = heldNote{text: text, at: now}
}

func (h *heldNotes) get(id string, prompt int) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, ok := h.m[noteKey{id, prompt}]
	return n.text, ok
}

func (h *heldNotes) drop(id string, prompt int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, noteKey{id, prompt})
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
