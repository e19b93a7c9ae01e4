package redis

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/askbridge/askbridge/broker"
)

// A question's body (its JSON, key j:<id>) never changes while its record
// lives, so each Store keeps the bodies it wrote or read lately and reads
// only the record hash when it has the body. The record's field bv, drawn
// at random when the question is created, names the body: a body is used
// only for a record with the same bv, so a question purged and created
// again under the same id is never given the old body. Records without bv
// (written by an older version) are always read with their body.
//
// The cache also keeps the body decoded, once: a question read again is a
// copy (broker.Question.Clone) of the decoded body with the record's
// changing fields applied, not a new JSON decode. The body of a question
// created here is not decoded at all: Create keeps a copy of what it
// encoded, which is what a decode would give (createArgs).

// bodyCacheSize bounds each of the cache's two generations.
const bodyCacheSize = 2048

// bodyCache keeps recent bodies in two generations: when the current one
// is full it becomes the previous one, and the oldest is dropped.
type bodyCache struct {
	mu        sync.Mutex
	cur, prev map[string]cachedBody
}

type cachedBody struct {
	version, body string
	// q is the body decoded, or nil until first needed. It is never
	// changed: readers copy it.
	q *broker.Question
}

func newBodyCache() *bodyCache {
	return &bodyCache{cur: make(map[string]cachedBody, bodyCacheSize)}
}

// newBodyVersion draws the bv of a new question.
func newBodyVersion() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// get returns the body of id if it is kept, with its version.
func (c *bodyCache) get(id string) (cachedBody, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.cur[id]; ok {
		return b, true
	}
	b, ok := c.prev[id]
	return b, ok
}

// put keeps body b of id, with b.q when it is set (the body as a
// question, never changed afterwards); an empty version or body is not
// kept.
func (c *bodyCache) put(id string, b cachedBody) {
	if b.version == "" || b.body == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.cur[id]; !ok && len(c.cur) >= bodyCacheSize {
		c.prev, c.cur = c.cur, make(map[string]cachedBody, bodyCacheSize)
	}
	c.cur[id] = b
}

// base returns the decoded body of record r of question id, when the
// cache keeps it, decoding it on first use; nil otherwise. The caller
// must not change it.
func (c *bodyCache) base(id string, r record) *broker.Question {
	b, ok := c.get(id)
	if !ok || b.version == "" || b.version != r["bv"] || b.body != r["j"] {
		return nil
	}
	if b.q != nil {
		return b.q
	}
	q := new(broker.Question)
	if err := json.Unmarshal([]byte(b.body), q); err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range []map[string]cachedBody{c.cur, c.prev} {
		if e, ok := m[id]; ok && e.version == b.version {
			e.q = q
			m[id] = e
		}
	}
	return q
}

// version returns the version of the kept body of id, or "".
func (c *bodyCache) version(id string) string {
	b, _ := c.get(id)
	return b.version
}

// fill completes a record read without its body (field j empty) from the
// cache, and keeps the body of a record read with it. It reports whether
// the record has its body.
func (c *bodyCache) fill(id string, r record) bool {
	if r["j"] != "" {
		c.put(id, cachedBody{version: r["bv"], body: r["j"]})
		return true
	}
	b, ok := c.get(id)
	if !ok || b.version == "" || b.version != r["bv"] {
		return false
	}
	r["j"] = b.body
	return true
}
