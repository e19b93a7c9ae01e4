package redis

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// The platform outbox lives in the question's record, so that the scripts
// that create and resolve a question write its tasks in the same step: a
// task is the field "o\t<kind>\t<channel>\t<chat>", its value the
// tab-separated taskFields, with its times in base 62 (taskvalue.go). The
// last, the class of the last failure, is left out when there is none,
// as values written before it was kept apart lack it: those keep the
// class at the head of the last error, read with broker.DecodeLastError. The
// shard's set "po" orders the unfinished tasks by their next attempt
// (milliseconds); its members are the question id followed by the field
// without its "o". Times are milliseconds, which Lua's numbers hold
// exactly.

// Positions in a task's value (1-based in Lua, 0-based here).
const (
	tfState = iota
	tfAttempts
	tfNext
	tfDeadline
	tfGen
	tfClaim
	tfCreated
	tfUpdated
	tfMessage
	tfError
	tfClass
	taskFields
)

func (k *keys) platformOutbox(n int) string { return k.tags[n] + "po" }

// outboxLua defines the helpers of the scripts that touch tasks:
// tsplit/tjoin (taskValueLua) read and write a task's value, pokey
// derives the shard's set from its deadline set, renewed(v, now,
// deadline) returns the value and next attempt of a task after adding
// (v false) or renewing it (see broker.PlatformOutbox), renew(rec, po,
// id, field, now, deadline) writes that, and edits(r, id, atUs, nowUs,
// fv, po) appends to fv (field/value pairs) and po (score/member pairs)
// the renewed edit of every target of the question whose record fields
// are r, resolved at atUs: due at once, even for a resolution dated
// later.
const outboxLua = taskValueLua + `
local function pokey(due) return (string.gsub(due, 'due$', 'po')) end
local function unfinished(st) return st == 'queued' or st == 'retrying' end
local function renewed(v, now, deadline)
  if not v then
    return tjoin({'queued', '0', now, deadline, '1', '0', now, now, '', ''}), now
  end
  local t = tsplit(v)
  t[5] = string.format('%d', tonumber(t[5]) + 1)
  t[4], t[8] = deadline, now
  if not unfinished(t[1]) then
    t[1], t[2], t[3], t[6], t[7], t[10], t[11] = 'queued', '0', now, '0', now, '', ''
  elseif tonumber(t[6]) <= tonumber(now) and tonumber(t[3]) > tonumber(now) then
    t[3] = now
  end
  return tjoin(t), t[3]
end
local function renew(rec, po, id, field, now, deadline)
  local v, at = renewed(redis.call('HGET', rec, field), now, deadline)
  redis.call('HSET', rec, field, v)
  redis.call('ZADD', po, at, id .. string.sub(field, 2))
end
local function edits(r, id, atUs, nowUs, fv, po)
  local at = math.floor(tonumber(atUs) / 1000)
  local now = string.format('%d', math.min(at, math.floor(tonumber(nowUs) / 1000)))
  local deadline = string.format('%d', at + ` + editWindowMS + `)
  for f, _ in pairs(r) do
    if string.sub(f, 1, 7) == 'o\tpost\t' then
      local e = 'o\tedit\t' .. string.sub(f, 8)
      local v, nx = renewed(r[e] or false, now, deadline)
      fv[#fv + 1], fv[#fv + 2] = e, v
      po[#po + 1], po[#po + 2] = nx, id .. string.sub(e, 2)
    end
  end
end
`

// editWindowMS is broker.EditWindow in milliseconds, for outboxLua
// (TestEditWindowMS keeps them equal).
const editWindowMS = "86400000"

// enqueueTasksScript renews tasks of a question that exists. KEYS: rec,
// po. ARGV: 1 id, 2 nowMs, 3 deadlineMs, 4.. fields. Returns 0 when there
// is no such question.
var enqueueTasksScript = newScript(outboxLua + `
if redis.call('HEXISTS', KEYS[1], 'cr') == 0 then return 0 end
for i = 4, #ARGV do renew(KEYS[1], KEYS[2], ARGV[1], ARGV[i], ARGV[2], ARGV[3]) end
return 1
`)

// claimTaskScript holds one due task. KEYS: rec, po. ARGV: 1 member,
// 2 field, 3 nowMs, 4 holdMs. Returns the task's value, or false.
var claimTaskScript = newScript(outboxLua + `
local sc = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not sc or tonumber(sc) > tonumber(ARGV[3]) then return false end
local v = redis.call('HGET', KEYS[1], ARGV[2])
if not v then redis.call('ZREM', KEYS[2], ARGV[1]) return false end
local t = tsplit(v)
if not unfinished(t[1]) then redis.call('ZREM', KEYS[2], ARGV[1]) return false end
if tonumber(t[3]) > tonumber(ARGV[3]) then redis.call('ZADD', KEYS[2], t[3], ARGV[1]) return false end
t[3], t[6] = ARGV[4], ARGV[4]
redis.call('HSET', KEYS[1], ARGV[2], tjoin(t))
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
return tjoin(t)
`)

// claimQuestionScript holds up to a limit of the due tasks of one
// question: one read of the record, one HSET and one ZADD for what it
// claims. KEYS: rec, po. ARGV: 1 id, 2 nowMs, 3 holdMs, 4 limit.
// Returns field, value pairs.
var claimQuestionScript = newScript(outboxLua + `
local out, fv, zs = {}, {}, {}
local h = redis.call('HGETALL', KEYS[1])
for i = 1, #h, 2 do
  if #out >= 2 * tonumber(ARGV[4]) then break end
  local f = h[i]
  if string.sub(f, 1, 2) == 'o\t' then
    local t = tsplit(h[i + 1])
    if unfinished(t[1]) and tonumber(t[3]) <= tonumber(ARGV[2]) then
      t[3], t[6] = ARGV[3], ARGV[3]
      local v = tjoin(t)
      fv[#fv + 1], fv[#fv + 2] = f, v
      zs[#zs + 1], zs[#zs + 2] = ARGV[3], ARGV[1] .. string.sub(f, 2)
      out[#out + 1], out[#out + 2] = f, v
    end
  end
end
if #fv > 0 then
  redis.call('HSET', KEYS[1], unpack(fv))
  redis.call('ZADD', KEYS[2], unpack(zs))
end
return out
`)

// updateTaskScript records an attempt. KEYS: rec, po. ARGV: 1 field,
// 2 member, 3 claimMs, 4 state, 5 attempts, 6 nextMs, 7 lastError,
// 8 messageID, 9 updatedMs, 10 gen, 11 error class. Returns 0 when there is no such task,
// -1 when the claim is no longer the task's.
var updateTaskScript = newScript(outboxLua + `
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local t = tsplit(v)
if t[6] ~= ARGV[3] or not unfinished(t[1]) then return -1 end
local st, nx = ARGV[4], ARGV[6]
if t[5] ~= ARGV[10] and not unfinished(st) then st, nx = 'queued', ARGV[9] end
t[1], t[2], t[3], t[6], t[8], t[10], t[11] = st, ARGV[5], nx, '0', ARGV[9], ARGV[7], ARGV[11]
if ARGV[8] ~= '' then t[9] = ARGV[8] end
redis.call('HSET', KEYS[1], ARGV[1], tjoin(t))
if unfinished(st) then redis.call('ZADD', KEYS[2], nx, ARGV[2]) else redis.call('ZREM', KEYS[2], ARGV[2]) end
return 1
`)

// taskField is the record field of a task.
func taskField(kind broker.TaskKind, t broker.Target) string {
	return "o\t" + string(kind) + "\t" + t.Channel + "\t" + t.Chat
}

// postTaskFields returns the field/value pairs of the post tasks of a new
// question, for the create scripts: none for its in-process targets.
func postTaskFields(q *broker.Question, inProcess []broker.Target) []any {
	deadline := q.ExpiresAt
	if deadline.IsZero() {
		deadline = q.CreatedAt.Add(broker.MaxTimeout)
	}
	var out []any
	value := "" // every post task starts alike
	for _, t := range q.Targets {
		if slices.Contains(inProcess, t) {
			continue // the broker posts it itself
		}
		if value == "" {
			value = newTaskValue(q.CreatedAt.UnixMilli(), deadline.UnixMilli())
		}
		out = append(out, taskField(broker.TaskPost, t), value)
	}
	return out
}

// parseTask reads a task from its field and value.
func parseTask(id, field, value string) (broker.PlatformTask, error) {
	f := strings.SplitN(field, "\t", 4)
	v := strings.Split(value, "\t")
	if len(v) == taskFields-1 {
		v = append(v, "") // no class
	}
	if len(f) != 4 || f[0] != "o" || len(v) != taskFields {
		return broker.PlatformTask{}, fmt.Errorf("malformed task %q of %s", field, id)
	}
	var times [taskFields]int64
	for _, i := range taskTimes {
		n, ok := taskTime(v, i)
		if !ok {
			return broker.PlatformTask{}, fmt.Errorf("malformed task %q of %s: time %q", field, id, v[i])
		}
		times[i] = n
	}
	attempts, err1 := strconv.Atoi(v[tfAttempts])
	gen, err2 := strconv.ParseInt(v[tfGen], 10, 64)
	if err1 != nil || err2 != nil {
		return broker.PlatformTask{}, fmt.Errorf("malformed task %q of %s: attempts %q, gen %q", field, id, v[tfAttempts], v[tfGen])
	}
	t := broker.PlatformTask{
		QuestionID: id, Kind: broker.TaskKind(f[1]), Target: broker.Target{Channel: f[2], Chat: f[3]},
		State: v[tfState], Attempts: attempts, NextAt: msTime(times[tfNext]), Deadline: msTime(times[tfDeadline]),
		Gen: gen, CreatedAt: msTime(times[tfCreated]), UpdatedAt: msTime(times[tfUpdated]),
		MessageID: v[tfMessage], LastError: v[tfError], ErrorClass: broker.FailureClass(v[tfClass]),
	}
	if t.ErrorClass == "" && t.LastError != "" {
		// Written before the class was kept apart, or a reason without one.
		t.ErrorClass, t.LastError = broker.DecodeLastError(t.LastError)
	}
	if c := times[tfClaim]; c != 0 {
		t.Claim = msTime(c)
	}
	return t, nil
}

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// EnqueuePlatformWork adds or renews tasks; see broker.PlatformOutbox.
func (s *Store) EnqueuePlatformWork(ctx context.Context, id string, kind broker.TaskKind, targets []broker.Target, now, deadline time.Time) error {
	if !kind.Valid() {
		return fmt.Errorf("redis store: enqueue platform work %s: %w", id, &broker.FieldError{Field: "kind", Message: fmt.Sprintf("unknown kind %q", kind)})
	}
	if !validID(id) {
		return fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	args := []any{id, now.UnixMilli(), deadline.UnixMilli()}
	for _, t := range targets {
		if t.Channel == "" || strings.ContainsAny(t.Channel+t.Chat, "\t") {
			return fmt.Errorf("redis store: enqueue platform work %s: %w", id, &broker.FieldError{Field: "target", Message: fmt.Sprintf("%q is not a target", t)})
		}
		args = append(args, taskField(kind, t))
	}
	n, err := enqueueTasksScript.Run(ctx, s.run, []string{s.k.rec(id), s.k.platformOutbox(shardOf(id))}, args...).Int()
	if err != nil {
		return wrap("enqueue platform work", err)
	}
	if n == 0 {
		return fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
	}
	return nil
}

// ClaimPlatformWork holds up to limit due tasks; see broker.PlatformOutbox.
func (s *Store) ClaimPlatformWork(ctx context.Context, questionID string, now time.Time, limit int, hold time.Duration) ([]broker.PlatformTask, error) {
	if hold <= 0 {
		return nil, fmt.Errorf("redis store: claim platform work: %w", &broker.FieldError{Field: "hold", Message: fmt.Sprintf("must be positive, got %v", hold)})
	}
	if limit <= 0 {
		return nil, nil
	}
	until := strconv.FormatInt(now.Add(hold).UnixMilli(), 10)
	if questionID != "" {
		if !validID(questionID) {
			return nil, nil
		}
		v, err := claimQuestionScript.Run(ctx, s.run, []string{s.k.rec(questionID), s.k.platformOutbox(shardOf(questionID))},
			questionID, now.UnixMilli(), until, limit).StringSlice()
		if err != nil {
			return nil, wrap("claim platform work", err)
		}
		var out []broker.PlatformTask
		for i := 0; i+1 < len(v); i += 2 {
			t, err := parseTask(questionID, v[i], v[i+1])
			if err != nil {
				return nil, fmt.Errorf("redis store: claim platform work: %w", err)
			}
			out = append(out, t)
		}
		return out, nil
	}
	due, err := s.earliestDue(ctx, "claim platform work", s.k.platformOutbox, strconv.FormatInt(now.UnixMilli(), 10), limit)
	if err != nil || len(due) == 0 {
		return nil, err
	}
	b := s.batch()
	claims := make([]*goredis.Cmd, len(due))
	ids := make([]string, len(due))
	fields := make([]string, len(due))
	for i, z := range due {
		member := z.Member.(string)
		id, rest, _ := strings.Cut(member, "\t")
		ids[i], fields[i] = id, "o\t"+rest
		claims[i] = b.script(ctx, claimTaskScript, []string{s.k.rec(id), s.k.platformOutbox(shardOf(id))},
			member, fields[i], now.UnixMilli(), until)
	}
	if err := b.exec(ctx); err != nil {
		return nil, wrap("claim platform work", err)
	}
	var out []broker.PlatformTask
	for i, c := range claims {
		v, ok := c.Val().(string)
		if !ok {
			continue
		}
		t, err := parseTask(ids[i], fields[i], v)
		if err != nil {
			return nil, fmt.Errorf("redis store: claim platform work: %w", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// UpdatePlatformWork records an attempt's outcome; see broker.PlatformOutbox.
func (s *Store) UpdatePlatformWork(ctx context.Context, t broker.PlatformTask) error {
	switch t.State {
	case broker.TaskQueued, broker.TaskRetrying, broker.TaskDone, broker.TaskFailed, broker.TaskDropped:
	default:
		return fmt.Errorf("redis store: update platform work %s: %w", t.QuestionID, &broker.FieldError{Field: "state", Message: fmt.Sprintf("unknown state %q", t.State)})
	}
	if t.Claim.IsZero() {
		return fmt.Errorf("redis store: update platform work %s: %w", t.QuestionID, &broker.FieldError{Field: "claim", Message: "the task carries no claim"})
	}
	if t.ErrorClass != "" && !t.ErrorClass.Valid() {
		return fmt.Errorf("redis store: update platform work %s: %w", t.QuestionID, &broker.FieldError{Field: "error_class", Message: fmt.Sprintf("unknown error class %q", t.ErrorClass)})
	}
	if !validID(t.QuestionID) {
		return fmt.Errorf("redis store: question %q: %w", t.QuestionID, broker.ErrNotFound)
	}
	field := taskField(t.Kind, t.Target)
	lastErr := clip(strings.ReplaceAll(t.LastError, "\t", " "))
	r, err := updateTaskScript.Run(ctx, s.run, []string{s.k.rec(t.QuestionID), s.k.platformOutbox(shardOf(t.QuestionID))},
		field, t.QuestionID+field[1:], t.Claim.UnixMilli(), t.State, t.Attempts, t.NextAt.UnixMilli(),
		lastErr, strings.ReplaceAll(t.MessageID, "\t", " "), t.UpdatedAt.UnixMilli(), t.Gen, string(t.ErrorClass)).Int()
	if err != nil {
		return wrap("update platform work", err)
	}
	switch r {
	case 0:
		return fmt.Errorf("redis store: task %s %s of %s: %w", t.Kind, t.Target, t.QuestionID, broker.ErrNotFound)
	case -1:
		return fmt.Errorf("redis store: %w: task %s %s of %s was claimed again or finished since its claim", broker.ErrConflict, t.Kind, t.Target, t.QuestionID)
	}
	return nil
}

// clip bounds a task's last error, on a character boundary.
func clip(s string) string {
	if len(s) <= broker.TaskMaxError {
		return s
	}
	return strings.ToValidUTF8(s[:broker.TaskMaxError], "")
}
