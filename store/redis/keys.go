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
// the layout.
type keys struct {
	prefix string
	tags   [shards]string // "<prefix>{sN}:"
}

func newKeys(prefix string) keys {
	k := keys{prefix: prefix}
	for i := range shards {
		k.tags[i] = prefix + "{s" + strconv.Itoa(i) + "}:"
	}
	return k
}

// shardOf returns the shard of a question id or idempotency digest.
func shardOf(s string) int { return int(crc32.ChecksumIEEE([]byte(s)) % shards) }

func (k keys) rec(id string) string              { return k.tags[shardOf(id)] + "q:" + id }
func (k keys) body(id string) string             { return k.tags[shardOf(id)] + "j:" + id }
func (k keys) audit(id string) string            { return k.tags[shardOf(id)] + "au:" + id }
func (k keys) recPrefix(n int) string            { return k.tags[n] + "q:" }
func (k keys) due(n int) string                  { return k.tags[n] + "due" }
func (k keys) rem(n int) string                  { return k.tags[n] + "rem" }
func (k keys) timers(n int) string               { return k.tags[n] + "tm" }
func (k keys) lease(n int) string                { return k.tags[n] + "lease" }
func (k keys) all(n int) string                  { return k.tags[n] + "all" }
func (k keys) done(n int) string                 { return k.tags[n] + "done" }
func (k keys) outbox(n int) string               { return k.tags[n] + "ob" }
func (k keys) unlogged(n int) string             { return k.tags[n] + "unl" }
func (k keys) agent(n int, agent string) string  { return k.tags[n] + "ag:" + agent }
func (k keys) session(n int, sess string) string { return k.tags[n] + "ss:" + sess }
func (k keys) chat(n int, ch, chat string) string {
	return k.tags[n] + "ch:" + ch + "\x00" + chat
}

// idem returns the key that maps an idempotency key to a question id; it
// lives in the shard of its own digest, not in the question's.
func (k keys) idem(agent, session, toolCallID string) string {
	sum := sha256.Sum256([]byte(agent + "\x00" + session + "\x00" + toolCallID))
	d := hex.EncodeToString(sum[:16])
	return k.tags[shardOf(d)] + "k:" + d
}

// lookup maps a platform message to its question id. It is read alone, so
// it may hash anywhere.
func (k keys) lookup(channel, chat, messageID string) string {
	return k.prefix + "l:" + channel + "\x00" + chat + "\x00" + messageID
}

// The event log lives in one slot, {ev}, so that one counter orders it.
func (k keys) evSeq() string               { return k.prefix + "{ev}:seq" }
func (k keys) evLog() string               { return k.prefix + "{ev}:log" }
func (k keys) evIDs() string               { return k.prefix + "{ev}:ids" }
func (k keys) evAgentPrefix() string       { return k.prefix + "{ev}:a:" }
func (k keys) evAgent(agent string) string { return k.evAgentPrefix() + agent }
func (k keys) feed() string                { return k.prefix + "resolved" }

// evPending is the set of an agent's pending questions. It lives in the
// event log's slot, so that logging a resolution's event drops the
// question from it in the same script.
func (k keys) evPending(agent string) string { return k.evPendingPrefix() + agent }

// evPendingPrefix starts the name of every agent's pending set.
func (k keys) evPendingPrefix() string { return k.prefix + "{ev}:p:" }
