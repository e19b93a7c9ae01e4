package sqlite

import (
	"bytes"
	"sync"

	"github.com/askbridge/askbridge/broker"
)

// decodedMax is how many questions the decoded cache keeps at most: more
// than the questions in flight under load, few enough to stay small.
const decodedMax = 1024

// decodedCache keeps the questions last decoded, by id, with the stored
// text each was decoded from. A read still reads the row, always: when
// its text is the one kept, the question is copied (broker.Question.Clone)
// instead of decoded again, which costs a fraction of JSON decoding. The
// text compared is the whole row's, so a change by this process, another
// one on the file or a restore is seen as a miss; the cache can only
// save work, never answer with an old state. The questions kept are
// never handed out, only their copies.
type decodedCache struct {
	mu sync.Mutex
	m  map[string]decodedEntry
}

type decodedEntry struct {
	raw []byte
	q   *broker.Question
}

func newDecodedCache() *decodedCache {
	return &decodedCache{m: make(map[string]decodedEntry, decodedMax)}
}

// decode returns the question stored as raw under id, a copy of its own
// to the caller. raw must not be changed afterwards: the cache may keep it.
func (c *decodedCache) decode(id string, raw []byte) (*broker.Question, error) {
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && bytes.Equal(e.raw, raw) {
		return e.q.Clone(), nil
	}
	q, err := decode(raw)
	if err != nil {
		return nil, err
	}
	c.put(id, raw, q.Clone())
	return q, nil
}

// kept returns a copy of its own of question id as the cache keeps it,
// and the text it was kept with (which the caller must not change); nil
// and nil when it keeps none. The row may have changed since: the caller
// compares its text.
func (c *decodedCache) kept(id string) (*broker.Question, []byte) {
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if !ok {
		return nil, nil
	}
	return e.q.Clone(), e.raw
}

// put keeps q, decoded from raw, under id; q and raw must not be changed
// afterwards. When the cache is full an arbitrary entry makes room.
func (c *decodedCache) put(id string, raw []byte, q *broker.Question) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[id]; !ok && len(c.m) >= decodedMax {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[id] = decodedEntry{raw: raw, q: q}
}

// forget drops the entries of ids: of questions deleted (Purge), so that
// their memory goes with them, and resolved (Resolve), whose text has
// changed.
func (c *decodedCache) forget(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		delete(c.m, id)
	}
}
