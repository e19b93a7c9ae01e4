package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// The extended event of a snooze is logged the way a resolution's event
// is: the amend script that moves the deadline marks "<id>\t<snooze
// number>" in the shard's unx set, in the same step; a second round trip
// appends the event to its agent's log (slot {ev}, where one counter
// orders every event), once per mark, publishes the id on the feed and
// drops the mark. Due logs the marks a crash left behind (see
// repairExtended), so every snooze has its event exactly once.

// unextended is the shard's set of snoozes whose extended event may not
// be logged yet: member "<id>\t<snooze number>", score the time of the
// mark (µs).
func (k *keys) unextended(n int) string { return k.tags[n] + "unx" }

// logExtendedScript appends an extended event once per mark and
// publishes "<id>\t<agent>" on the feed. KEYS: seq, ids, agent log.
// ARGV: 1 the event's key in ids ("<id>\tx<snooze number>"), 2 agent, 3
// member ("<atUs> <json>"), 4 feed channel, 5 id. Returns the event's
// seq. The log's trim (trimLog in eventLua) drops the key with its event.
var logExtendedScript = newScript(`
local have = redis.call('HGET', KEYS[2], ARGV[1])
if have then return tonumber(string.match(have, '^(%d+)')) end
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[3], seq, ARGV[3])
redis.call('HSET', KEYS[2], ARGV[1], seq .. ' ' .. ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[5] .. '\t' .. ARGV[2])
return seq
`)

// extendedMark returns the mark of a's extended event, or "" when a is
// not a snooze; an Extended amendment without a snooze is an error.
func extendedMark(id string, a broker.Amendment) (string, error) {
	if _, ok, err := a.ExtendedEvent(&broker.Question{ID: id}); !ok {
		return "", err
	}
	return id + "\t" + strconv.Itoa(len(a.State.Snoozes)), nil
}

// logExtended logs the extended event of mark for q (as the amend script
// left it) and drops the mark. A failure leaves the mark for Due.
func (s *Store) logExtended(ctx context.Context, q *broker.Question, mark string) {
	ctx = context.WithoutCancel(ctx)
	if err := s.logMarked(ctx, q, mark); err != nil {
		s.log.Warn("extended event not logged yet", "question_id", q.ID, "err", err)
	}
}

// logMarked appends the event of mark (idempotent) and drops the mark.
func (s *Store) logMarked(ctx context.Context, q *broker.Question, mark string) error {
	id, num, _ := strings.Cut(mark, "\t")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return fmt.Errorf("bad mark %q", mark)
	}
	if n <= len(q.State.Snoozes) {
		ev := broker.ExtendedEvent(q, q.State.Snoozes[n-1], n)
		body, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		member := strconv.FormatInt(usec(ev.At), 10) + " " + string(body)
		keys := []string{s.k.evSeq(), s.k.evIDs(), s.k.evAgent(q.Agent)}
		if err := logExtendedScript.Run(ctx, s.run, keys, id+"\tx"+num, q.Agent, member, s.k.feed(), id).Err(); err != nil {
			return wrap("log extended event", err)
		}
		s.feed.broadcast(broker.Resolved{ID: id, Agent: q.Agent})
	}
	return wrap("drop extended mark", s.c.ZRem(ctx, s.k.unextended(shardOf(id)), mark).Err())
}

// repairExtended logs the extended events whose marks are older than
// repairAfter (their Amend died before logging them; logging again is a
// no-op) and drops the marks. A mark of a question that is gone is
// dropped with nothing logged. It looks at most once per repairAfter.
func (s *Store) repairExtended(ctx context.Context) {
	now := time.Now().UnixMicro()
	last := s.extRepair.Load()
	if now-last < repairAfter.Microseconds() || !s.extRepair.CompareAndSwap(last, now) {
		return
	}
	pipe := s.c.Pipeline()
	cmds := make([]*goredis.StringSliceCmd, shards)
	max := strconv.FormatInt(usec(time.Now().Add(-repairAfter)), 10)
	for n := range shards {
		cmds[n] = pipe.ZRangeByScore(ctx, s.k.unextended(n), &goredis.ZRangeBy{Min: "-inf", Max: max, Count: 100})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		s.log.Warn("read unlogged extensions", "err", err)
		return
	}
	for n, c := range cmds {
		for _, mark := range c.Val() {
			id, _, _ := strings.Cut(mark, "\t")
			q, err := s.Get(ctx, id)
			if err != nil && !errors.Is(err, broker.ErrNotFound) {
				s.log.Warn("read unlogged extension", "question_id", id, "err", err)
				continue
			}
			if q == nil {
				_ = s.c.ZRem(ctx, s.k.unextended(n), mark).Err()
				continue
			}
			if err := s.logMarked(ctx, q, mark); err != nil {
				s.log.Warn("log extended event", "question_id", id, "err", err)
			}
		}
	}
}
