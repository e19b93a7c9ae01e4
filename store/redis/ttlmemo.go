package redis

import (
	"sync"
	"time"
)

// renewWindow is how long after giving an index key its TTL this process
// sends no other PEXPIRE for it. The scripts set index keys to the index
// TTL plus this window, so a key renewed less than a window ago still has
// more than the index TTL to live: every entry added meanwhile outlives
// its record, as when each write renewed the key.
const renewWindow = time.Minute

// memoCap bounds the keys a ttlMemo holds; past it, the memo starts over
// (and the next write to each key renews it again).
const memoCap = 1 << 14

// ttlMemo remembers when this process last gave each index key its TTL,
// so that a write to a busy agent's, session's or chat's index renews it
// once a window instead of with a PEXPIRE per write. Only a script that
// did write marks its keys (marked), after its reply: a refused or failed
// write leaves them due. Each process keeps its own memo, so instances
// sharing a store each renew a key once a window.
//
// A key deleted within a window of its renewal (a FLUSHDB, or an index
// emptied by purges) and written again in that window is recreated
// without a TTL until its next write after the window; its entries still
// leave as their questions are purged, which deletes the emptied key.
type ttlMemo struct {
	mu    sync.Mutex
	until map[string]int64 // key → Unix ns until which it needs no PEXPIRE
}

func newTTLMemo() *ttlMemo { return &ttlMemo{until: make(map[string]int64)} }

// due reports whether key needs its TTL given again at now.
func (m *ttlMemo) due(key string, now time.Time) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dueLocked(key, now.UnixNano())
}

// dueLocked is due at now (Unix ns), with m.mu held.
func (m *ttlMemo) dueLocked(key string, now int64) bool {
	u, ok := m.until[key]
	return !ok || now >= u
}

// plan tells a script which of keys to renew at now: one digit per key,
// 1 to renew and 0 to skip (an empty key, an index the write has not, is
// skipped), and the keys to renew, for marked once the script has
// written them.
func (m *ttlMemo) plan(now time.Time, keys []string) (digits string, renew []string) {
	d := make([]byte, len(keys))
	ns := now.UnixNano()
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, k := range keys {
		d[i] = '0'
		if k != "" && m.dueLocked(k, ns) {
			d[i] = '1'
			renew = append(renew, k)
		}
	}
	return string(d), renew
}

// marked records that keys were given their TTL no earlier than at.
func (m *ttlMemo) marked(keys []string, at time.Time) {
	if len(keys) == 0 {
		return
	}
	u := at.Add(renewWindow).UnixNano()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.until)+len(keys) > memoCap {
		now := time.Now().UnixNano()
		for k, v := range m.until {
			if v <= now {
				delete(m.until, k)
			}
		}
		if len(m.until)+len(keys) > memoCap {
			clear(m.until)
		}
	}
	for _, k := range keys {
		m.until[k] = u
	}
}
