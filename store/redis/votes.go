package redis

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// amendScript is the compare-and-set of a question's policy state. A new
// deadline moves the question's timer (timers.go), or for layouts 1 and 2
// its entries in due and rem, and takes the body's TTL away until Resolve.
// The audit entries are appended in the same step, after the trail's
// length the caller sealed them for (audit.go); another length changes
// nothing and answers the trail's end.
// KEYS: rec, due, rem, esc, unx. ARGV: 1 expected revision, 2 state JSON,
// 3 new deadline (µs) or empty, 4 new reminder times (µs, comma list) or
// empty, 5 id, 6 next escalation step (µs) or empty, 7 the mark of an
// extended event to log ("<id>\t<snooze number>", extended.go) or empty,
// 8 the mark's time (µs), 9 the trail's length the entries follow, 10 the
// packed audit entries (auditPush), empty for none.
var amendScript = newScript(prelude + timersLua + auditLua + `
local st = redis.call('HGET', KEYS[1], 'st')
if not st then return {'nf'} end
if st ~= 'pending' then
  redis.call('ZREM', KEYS[4], ARGV[5])
  return {'closed', whole(KEYS[1])}
end
if (redis.call('HGET', KEYS[1], 'pv') or '0') ~= ARGV[1] then return {'stale', whole(KEYS[1])} end
local agent = nil
if ARGV[10] ~= '' then
  local f = redis.call('HMGET', KEYS[1], 'a', 'an')
  agent = f[1]
  local n = auditLen(KEYS[1], f[2])
  if tonumber(ARGV[9]) ~= n then return auditTail(KEYS[1], n, agent) end
  redis.call('HSET', KEYS[1], 'ps', ARGV[2], 'pv', tonumber(ARGV[1]) + 1, 'an', n + auditCount(ARGV[10]))
else
  redis.call('HSET', KEYS[1], 'ps', ARGV[2], 'pv', tonumber(ARGV[1]) + 1)
end
if ARGV[3] ~= '' then
  local f = redis.call('HMGET', KEYS[1], 'lv', 'rs', 'rt', 'bx')
  redis.call('HSET', KEYS[1], 'ex', ARGV[3])
  if f[4] then
    -- The body's TTL was set from the old deadline: the body lasts
    -- until Resolve gives it the record's (bodySlack in create.go).
    redis.call('PERSIST', jkey(KEYS[1]))
    redis.call('HDEL', KEYS[1], 'bx')
  end
  if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'rt', ARGV[4]) end
  if (tonumber(f[1]) or 1) >= 3 then
    -- One timer, at the earlier of the next reminder and the deadline.
    local rt = f[3]
    if ARGV[4] ~= '' then rt = ARGV[4] end
    redis.call('ZADD', tmkey(KEYS[2]), nextTimer(rt, f[2], ARGV[3]), ARGV[5])
  else
    redis.call('ZADD', KEYS[2], ARGV[3], ARGV[5])
    if ARGV[4] ~= '' then
      local nextAt = nextTimer(ARGV[4], f[2], nil)
      if nextAt then redis.call('ZADD', KEYS[3], nextAt, ARGV[5]) else redis.call('ZREM', KEYS[3], ARGV[5]) end
    end
  end
end
if ARGV[6] ~= '' then redis.call('ZADD', KEYS[4], ARGV[6], ARGV[5]) else redis.call('ZREM', KEYS[4], ARGV[5]) end
if ARGV[7] ~= '' then redis.call('ZADD', KEYS[5], ARGV[8], ARGV[7]) end
if ARGV[10] ~= '' then auditPush(KEYS[1], ARGV[5], agent, tonumber(ARGV[9]), ARGV[10], false, true) end
return {'ok', whole(KEYS[1])}
`)

// Amend is the compare-and-set of a pending question's policy state,
// with its audit entries sealed after the trail's end (audit.go): when
// the trail moved meanwhile, they are sealed again after its new end.
func (s *Store) Amend(ctx context.Context, id string, rev int64, a broker.Amendment) (*broker.Question, error) {
	if !validID(id) {
		return nil, fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	a.State.Rev = 0 // kept in field pv
	state, err := json.Marshal(a.State)
	if err != nil {
		return nil, fmt.Errorf("redis store: amend %s: encode: %w", id, err)
	}
	expires, reminders := "", ""
	if !a.ExpiresAt.IsZero() {
		expires = strconv.FormatInt(usec(a.ExpiresAt), 10)
		times := make([]string, len(a.Reminders))
		for k, t := range a.Reminders {
			times[k] = strconv.FormatInt(usec(t), 10)
		}
		reminders = strings.Join(times, ",")
	}
	escalate := ""
	if !a.State.EscalateAt.IsZero() {
		escalate = strconv.FormatInt(usec(a.State.EscalateAt), 10)
	}
	mark, err := extendedMark(id, a)
	if err != nil {
		return nil, fmt.Errorf("redis store: amend %s: %w", id, err)
	}
	n := shardOf(id)
	keys := []string{s.k.rec(id), s.k.due(n), s.k.rem(n), s.k.esc(n), s.k.unextended(n)}
	t, known := s.trails.tail(id)
	for range auditAttempts {
		expect, packed, next := "", "", t
		if len(a.Audit) > 0 {
			if packed, next, err = s.sealAfter(id, t, a.Audit, time.Now()); err != nil {
				return nil, fmt.Errorf("redis store: amend %s: %w", id, err)
			}
			expect = expectArg(t, known)
		}
		v, err := amendScript.Run(ctx, s.run, keys, strconv.FormatInt(rev, 10), string(state), expires, reminders, id, escalate, mark, usec(time.Now()), expect, packed).Result()
		if err != nil {
			return nil, wrap("amend", err)
		}
		if moved, ok := tailReply(v); ok {
			moved.q = t.q
			t, known = moved, true
			continue
		}
		code, rec, err := scriptReply(v)
		if err == nil && code == "stale" {
			q, qerr := rec.question()
			if qerr != nil {
				return nil, fmt.Errorf("redis store: amend %s: %w", id, qerr)
			}
			return nil, fmt.Errorf("redis store: amend %s: the policy state is at revision %d, not %d: %w", id, q.State.Rev, rev, broker.ErrConflict)
		}
		q, err := s.mutationResult(ctx, "amend", id, v)
		if err != nil {
			return nil, err
		}
		if known || len(a.Audit) > 0 {
			next.agent = q.Agent
			next.q = snapshot(q)
			s.trails.setTail(id, next)
		}
		if mark != "" {
			s.logExtended(ctx, q, mark)
		}
		return q, nil
	}
	return nil, fmt.Errorf("redis store: amend %s: the audit trail kept moving: %w", id, broker.ErrUnavailable)
}

// policyState reads the policy state (fields ps, pv) and a deadline a
// snooze moved (field ex) into q.
func (r record) policyState(q *broker.Question) error {
	if v, ok := r["ps"]; ok {
		if err := json.Unmarshal([]byte(v), &q.State); err != nil {
			return fmt.Errorf("decode policy state of %s: %w", q.ID, err)
		}
		q.State.Rev, _ = strconv.ParseInt(r["pv"], 10, 64)
	}
	if v, ok := r["ex"]; ok {
		us, _ := strconv.ParseInt(v, 10, 64)
		q.ExpiresAt = time.UnixMicro(us).UTC()
	}
	return nil
}
