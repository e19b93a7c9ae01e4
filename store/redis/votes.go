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
// KEYS: rec, due, rem, esc, unx. ARGV: 1 expected revision, 2 state JSON,
// 3 new deadline (µs) or empty, 4 new reminder times (µs, comma list) or
// empty, 5 id, 6 next escalation step (µs) or empty, 7 the mark of an
// extended event to log ("<id>\t<snooze number>", extended.go) or empty,
// 8 the mark's time (µs); from ARGV[9] on, audit entries to append.
var amendScript = newScript(prelude + timersLua + `
local st = redis.call('HGET', KEYS[1], 'st')
if not st then return {'nf'} end
if st ~= 'pending' then
  redis.call('ZREM', KEYS[4], ARGV[5])
  return {'closed', whole(KEYS[1])}
end
if (redis.call('HGET', KEYS[1], 'pv') or '0') ~= ARGV[1] then return {'stale', whole(KEYS[1])} end
redis.call('HSET', KEYS[1], 'ps', ARGV[2], 'pv', tonumber(ARGV[1]) + 1)
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
for i = 9, #ARGV do redis.call('RPUSH', akey(KEYS[1]), ARGV[i]) end
return {'ok', whole(KEYS[1])}
`)

// addAuditScript appends audit entries to an existing question's log,
// which expires with the record, and marks the record (ha) so that
// Resolve knows the log is there. (A log written by amendScript goes with
// a policy state, ps, which is mark enough.) KEYS: rec. ARGV: entries. Returns 0
// when the question does not exist.
var addAuditScript = newScript(prelude + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
for i = 1, #ARGV do redis.call('RPUSH', akey(KEYS[1]), ARGV[i]) end
redis.call('HSET', KEYS[1], 'ha', '1')
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then redis.call('PEXPIRE', akey(KEYS[1]), ttl) end
return 1
`)

// Amend is the compare-and-set of a pending question's policy state.
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
	args := []any{strconv.FormatInt(rev, 10), string(state), expires, reminders, id, escalate, mark, usec(time.Now())}
	entries, err := auditArgs(a.Audit)
	if err != nil {
		return nil, fmt.Errorf("redis store: amend %s: %w", id, err)
	}
	n := shardOf(id)
	v, err := amendScript.Run(ctx, s.run, []string{s.k.rec(id), s.k.due(n), s.k.rem(n), s.k.esc(n), s.k.unextended(n)}, append(args, entries...)...).Result()
	if err != nil {
		return nil, wrap("amend", err)
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
	if err == nil && mark != "" {
		s.logExtended(ctx, q, mark)
	}
	return q, err
}

func auditArgs(entries []broker.AuditEntry) ([]any, error) {
	out := make([]any, len(entries))
	for k, e := range entries {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode audit entry: %w", err)
		}
		out[k] = string(b)
	}
	return out, nil
}

// AddAudit appends entries to the audit log of a question.
func (s *Store) AddAudit(ctx context.Context, id string, entries ...broker.AuditEntry) error {
	if !validID(id) {
		return fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	if len(entries) == 0 {
		return nil
	}
	args, err := auditArgs(entries)
	if err != nil {
		return fmt.Errorf("redis store: audit %s: %w", id, err)
	}
	ok, err := addAuditScript.Run(ctx, s.run, []string{s.k.rec(id)}, args...).Int()
	if err != nil {
		return wrap("audit", err)
	}
	if ok == 0 {
		return fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
	}
	return nil
}

// Audit returns the audit log of a question, oldest first.
func (s *Store) Audit(ctx context.Context, id string) ([]broker.AuditEntry, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	raw, err := s.c.LRange(ctx, s.k.audit(id), 0, -1).Result()
	if err != nil {
		return nil, wrap("audit", err)
	}
	out := make([]broker.AuditEntry, 0, len(raw))
	for _, r := range raw {
		var e broker.AuditEntry
		if err := json.Unmarshal([]byte(r), &e); err != nil {
			return nil, fmt.Errorf("redis store: audit %s: decode: %w", id, err)
		}
		out = append(out, e)
	}
	return out, nil
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
