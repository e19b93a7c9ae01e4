package redis

import (
	"crypto/sha256"
	"encoding/hex"
	"hash/crc32"
	"strconv"
)

// shards is the number of slots-groups the per-question keys are spread
// over. Changing it re-homes every question: it is fixed.
const shards = 16

// keys builds every key name from the configured prefix. See doc.go for
// the layout. The names that depend on the prefix and the shard alone are
// built once, so that a hot path allocates no key it does not name after
// a question, an agent or a chat.
type keys struct {
	prefix string
	tags   [shards]string // "<prefix>{sN}:"
	shard  [shards]shardKeys

	evSeqKey, evLogKey, evIDsKey, evAgentPre, evPendingPre, feedKey string
}

// shardKeys are the names of a shard's own sets.
type shardKeys struct {
	recPrefix, due, rem, timers, lease, all, done, outbox, unlogged string
}

func newKeys(prefix string) keys {
	k := keys{prefix: prefix}
	for i := range shards {
		t := prefix + "{s" + strconv.Itoa(i) + "}:"
		k.tags[i] = t
		k.shard[i] = shardKeys{recPrefix: t + "q:", due: t + "due", rem: t + "rem", timers: t + "tm",
			lease: t + "lease", all: t + "all", done: t + "done", outbox: t + "ob", unlogged: t + "unl"}
	}
	k.evSeqKey, k.evLogKey, k.evIDsKey = prefix+"{ev}:seq", prefix+"{ev}:log", prefix+"{ev}:ids"
	k.evAgentPre, k.evPendingPre, k.feedKey = prefix+"{ev}:a:", prefix+"{ev}:p:", prefix+"resolved"
	return k
}

// shardOf returns the shard of a question id or idempotency digest: the
// CRC-32 (IEEE) of its bytes, computed here without converting it.
func shardOf(s string) int {
	crc := ^uint32(0)
	for i := 0; i < len(s); i++ {
		crc = crc32.IEEETable[byte(crc)^s[i]] ^ (crc >> 8)
	}
	return int(^crc % shards)
}

func (k *keys) rec(id string) string              { return k.shard[shardOf(id)].recPrefix + id }
func (k *keys) body(id string) string             { return k.tags[shardOf(id)] + "j:" + id }
func (k *keys) audit(id string) string            { return k.tags[shardOf(id)] + "au:" + id }
func (k *keys) recPrefix(n int) string            { return k.shard[n].recPrefix }
func (k *keys) due(n int) string                  { return k.shard[n].due }
func (k *keys) rem(n int) string                  { return k.shard[n].rem }
func (k *keys) timers(n int) string               { return k.shard[n].timers }
func (k *keys) lease(n int) string                { return k.shard[n].lease }
func (k *keys) all(n int) string                  { return k.shard[n].all }
func (k *keys) done(n int) string                 { return k.shard[n].done }
func (k *keys) outbox(n int) string               { return k.shard[n].outbox }
func (k *keys) unlogged(n int) string             { return k.shard[n].unlogged }
func (k *keys) agent(n int, agent string) string  { return k.tags[n] + "ag:" + agent }
func (k *keys) oldSess(n int, sess string) string { return k.tags[n] + "ss:" + sess }
func (k *keys) chat(n int, ch, chat string) string {
	return k.tags[n] + "ch:" + ch + "\x00" + chat
}

// inbox is a channel's inbox set in shard n: part "io" holds the open
// questions, "ih" the resolved ones (inbox.go).
func (k *keys) inbox(n int, part, channel string) string {
	return k.tags[n] + part + ":" + channel
}

// session is the index of one agent's session: session ids are the
// agents' own, so two agents may use one. Older versions indexed a
// session id of every agent together (oldSess); List reads that index
// beside this one and Purge empties it, so that the questions it holds
// are still found until they are purged. The next release drops it.
func (k *keys) session(n int, agent, sess string) string {
	return k.tags[n] + "as:" + agent + "\x00" + sess
}

// idem returns the key that maps an idempotency key to a question id; it
// lives in the shard of its own digest, not in the question's.
func (k *keys) idem(agent, session, toolCallID string) string {
	sum := sha256.Sum256([]byte(agent + "\x00" + session + "\x00" + toolCallID))
	d := hex.EncodeToString(sum[:16])
	return k.tags[shardOf(d)] + "k:" + d
}

// lookup maps a platform message to its question id. It is read alone, so
// it may hash anywhere.
func (k *keys) lookup(channel, chat, messageID string) string {
	return k.prefix + "l:" + channel + "\x00" + chat + "\x00" + messageID
}

// The event logs live in one slot, {ev}, so that one counter orders them.
func (k *keys) evSeq() string               { return k.evSeqKey }
func (k *keys) evLog() string               { return k.evLogKey }
func (k *keys) evIDs() string               { return k.evIDsKey }
func (k *keys) evAgentPrefix() string       { return k.evAgentPre }
func (k *keys) evAgent(agent string) string { return k.evAgentPre + agent }
func (k *keys) feed() string                { return k.feedKey }

// evPending is the set of an agent's pending questions. It lives in the
// event log's slot, so that logging a resolution's event drops the
// question from it in the same script.
func (k *keys) evPending(agent string) string { return k.evPendingPre + agent }

// evPendingPrefix starts the name of every agent's pending set.
func (k *keys) evPendingPrefix() string { return k.evPendingPre }
