package redis

import (
	"context"
	"time"

	"github.com/askbridge/askbridge/broker"
	goredis "github.com/redis/go-redis/v9"
)

// WatchBuffer is the buffer of each Watch channel.
const WatchBuffer = watchBuffer

// IdemKey exposes the idempotency key name to the external tests.
func (s *Store) IdemKey(agent, session, toolCallID string) string {
	return s.k.idem(agent, session, toolCallID)
}

// ActAsCluster makes the store take the steps it takes on Cluster (where
// Resolve logs its event in a second call) on a single server.
func (s *Store) ActAsCluster() { s.cluster = true }

// LoadScripts loads every script of the store (on every master of a
// cluster), so that counted runs send no script twice.
func (s *Store) LoadScripts(ctx context.Context) error {
	for _, sc := range []*script{
		createScript, createIdemScript, admitScript, reserveScript, releaseScript, resolveScript,
		progressScript, claimReminderScript, renewLeaseScript, addMessageScript, listScript,
		claimDeliveryScript, updateDeliveryScript, logEventScript, purgeEventsScript, purgeScript, trimLogScript,
	} {
		if err := sc.Load(ctx, s.c).Err(); err != nil {
			return err
		}
	}
	return nil
}

// IndexKeyNames names the agent, session and chat index keys of question
// id.
func (s *Store) IndexKeyNames(id, agent, session, channel, chat string) (string, string, string) {
	n := shardOf(id)
	return s.k.agent(n, agent), s.k.session(n, agent, session), s.k.chat(n, channel, chat)
}

// OldSessionKey names the index older versions kept of a session id,
// in the shard of question id.
func (s *Store) OldSessionKey(id, session string) string { return s.k.oldSess(shardOf(id), session) }

// IndexTTL is the TTL index keys get when they are renewed.
func (s *Store) IndexTTL() time.Duration { return s.indexTTL() }

// ForgetRenewals makes every index key due for renewal, as when the
// window has passed since each was renewed.
func (s *Store) ForgetRenewals() {
	s.ttls.mu.Lock()
	clear(s.ttls.until)
	s.ttls.mu.Unlock()
}

// RenewalDue tells whether the next write to index key k renews its TTL.
func (s *Store) RenewalDue(k string) bool { return s.ttls.due(k, time.Now()) }

// KeepsDecodedBody reports whether the store keeps the body of question
// id as a question already, so that its next read decodes nothing.
func (s *Store) KeepsDecodedBody(id string) bool {
	b, ok := s.bodies.get(id)
	return ok && b.q != nil
}

// EventKeyNames names the record key of question id and the hash that
// maps questions to their events (ids).
func (s *Store) EventKeyNames(id string) (rec, ids string) {
	return s.k.rec(id), s.k.evIDs()
}

// ShardIndexNames names the index of every question and the done set
// (written by older versions) of question id's shard.
func (s *Store) ShardIndexNames(id string) (all, done string) {
	n := shardOf(id)
	return s.k.all(n), s.k.done(n)
}

// TimerKeyNames names the timer set and the due and rem sets (which
// questions of older layouts use) of question id's shard.
func (s *Store) TimerKeyNames(id string) (timers, due, rem string) {
	n := shardOf(id)
	return s.k.timers(n), s.k.due(n), s.k.rem(n)
}

// IDInShardOf returns a new question id in the shard of question id, for
// tests that need questions to share one shard's keys.
func IDInShardOf(id string) string {
	for {
		if n := broker.NewID(); shardOf(n) == shardOf(id) {
			return n
		}
	}
}

// EventLogNames names the log of agent's events, the log of every agent's
// events that older versions kept, and the event ids hash.
func (s *Store) EventLogNames(agent string) (agentLog, everyAgent, ids string) {
	return s.k.evAgent(agent), s.k.evLog(), s.k.evIDs()
}

// BodyKeyNames names the record and the body of question id.
func (s *Store) BodyKeyNames(id string) (rec, body string) {
	return s.k.rec(id), s.k.body(id)
}

// ActsAsCluster reports whether the store writes as on Cluster.
func (s *Store) ActsAsCluster() bool { return s.cluster }

// OutboxKeyName names the platform outbox set of question id's shard.
func (s *Store) OutboxKeyName(id string) string { return s.k.platformOutbox(shardOf(id)) }

// NewTaskValue is the value Create gives a queued post task.
func NewTaskValue(now, deadline int64) string { return newTaskValue(now, deadline) }

// TaskValueLua is the Lua that reads and writes a task's value.
const TaskValueLua = taskValueLua

// B62 is a number as task values write it.
func B62(n int64) string { return string(appendB62(nil, n)) }

// Batcher exposes the script batcher to the external tests.
type Batcher struct{ b *batcher }

// NewBatcher returns a batcher over c that keeps at most limit sends in
// flight.
func NewBatcher(c goredis.UniversalClient, limit int) Batcher {
	return Batcher{newBatcher(c, limit)}
}

// Process sends cmd through the batcher.
func (b Batcher) Process(ctx context.Context, cmd goredis.Cmder) error { return b.b.Process(ctx, cmd) }

// Occupy takes every slot, as sends in flight would, so that the next
// commands queue.
func (b Batcher) Occupy() {
	b.b.mu.Lock()
	b.b.flying = b.b.limit
	b.b.mu.Unlock()
}

// Queued is how many commands wait.
func (b Batcher) Queued() int {
	b.b.mu.Lock()
	defer b.b.mu.Unlock()
	return len(b.b.queue)
}

// Release ends one occupied slot's send, as its reply would.
func (b Batcher) Release() { b.b.done() }

// InFlight is how many sends hold a slot.
func (b Batcher) InFlight() int {
	b.b.mu.Lock()
	defer b.b.mu.Unlock()
	return b.b.flying
}

// RunScript runs the script src as the store runs its scripts that write
// (by SHA, then by source after NOSCRIPT), through b.
func RunScript(ctx context.Context, b Batcher, src string, keys []string, args ...any) *goredis.Cmd {
	return newScript(src).Run(ctx, b.b, keys, args...)
}

// SetScriptsInFlight sets how many script sends the store keeps in flight
// before it batches; a large n batches nothing.
func (s *Store) SetScriptsInFlight(n int) {
	s.run.mu.Lock()
	s.run.limit = n
	s.run.mu.Unlock()
}
