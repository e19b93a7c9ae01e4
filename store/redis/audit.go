package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// The audit trail of a question is the list P{sN}:au:<id> of its sealed
// entries (broker.SealAudit), with a time to live of the audit retention
// from its newest append, apart from the record: it outlives the
// question. Lua has no SHA-256, so the entries are sealed here, after
// the end of the trail this store knows (auditTails), and the script that
// appends them compares the trail's length with that end first: when
// another append came between, it appends nothing and answers the end as
// it is ("tail"), and the entries are sealed again after it. Every script
// that changes what an entry records appends the entry itself, in the
// same step: create (the ask, the in-process copies), add message (a
// posted copy), amend (votes, snoozes, escalations), resolve, and add
// audit for the rest.
//
// Each append also indexes its entries in the shard's export index
// P{sN}:ax, a sorted set of "<id>\t<seq, 10 digits>\t<agent>" by the
// entry's time (ms), in the same script (same slot). AuditSince merges
// the shards' indexes and reads the entries it picks from their trails.
//
// The record keeps the trail's length (field an), so that the scripts
// compare it with what they read anyway; records written before it have
// their trail's LLEN instead. The trail gets its time to live, the audit
// retention plus a question's maximum lifetime, as it opens and with
// every append but the resolution's, which comes within that lifetime:
// it expires at least the audit retention after its newest entry.
// Create opens the trail with RPUSH, whose answer tells a trail kept
// under the id (a purged question's) from a new one, so that the id
// proves taken without a call of its own.

// auditLua defines, for scripts given a record key:
// audkey(rec) and auxkey(rec), the keys of the record's trail and of its
// shard's export index; auditLen(rec, an), the trail's length (the
// record's field an, or the LLEN of a trail from before it); auditCount
// (packed), how many entries packed holds ("<ttl ms>\t<trim before
// ms>\t<at ms>\t<entry JSON>..."; the JSON of an entry holds no tab);
// auditTail(rec, n, agent), the answer of a script that found the trail
// at another length than the caller sealed for; auditOpen(rec, packed),
// which pushes packed's entries to a new trail, or leaves a kept trail as
// it was and returns false; and auditPush(rec, id, agent, n, packed,
// opened, expire), which appends packed's entries after entry n (unless
// auditOpen pushed them), indexes them, gives the trail its time to live
// with expire or as it opens it, and, as it opens the trail of one id in
// 16, trims the index of entries before the retention.
const auditLua = `
local function audkey(k) return (string.gsub(k, 'q:([^:]*)$', 'au:%1')) end
local function auxkey(k) return (string.gsub(k, 'q:([^:]*)$', 'ax')) end
local function auditLen(rec, an) return tonumber(an) or redis.call('LLEN', audkey(rec)) end
local function auditFields(packed)
  local f = {}
  for x in string.gmatch(packed, '[^\t]+') do f[#f + 1] = x end
  return f
end
local function auditCount(packed) return math.floor((#auditFields(packed) - 2) / 2) end
local function auditTail(rec, n, agent)
  return {'tail', n, redis.call('LINDEX', audkey(rec), -1) or '', agent or ''}
end
local function auditOpen(rec, packed)
  local f, vals = auditFields(packed), {}
  for i = 4, #f, 2 do vals[#vals + 1] = f[i] end
  if #vals == 0 then return true end
  local k = audkey(rec)
  local n = redis.call('RPUSH', k, unpack(vals))
  if n ~= #vals then
    redis.call('LTRIM', k, 0, n - #vals - 1)
    return false
  end
  return true
end
local function auditPush(rec, id, agent, n, packed, opened, expire)
  local f, vals, zs = auditFields(packed), {}, {}
  local first = n
  for i = 3, #f - 1, 2 do
    n = n + 1
    vals[#vals + 1] = f[i + 1]
    zs[#zs + 1] = f[i]
    zs[#zs + 1] = id .. '\t' .. string.format('%010d', n) .. '\t' .. (agent or '')
  end
  if #vals == 0 then return end
  local k, x = audkey(rec), auxkey(rec)
  if not opened then redis.call('RPUSH', k, unpack(vals)) end
  redis.call('ZADD', x, unpack(zs))
  if expire or first == 0 then redis.call('PEXPIRE', k, f[1]) end
  if first == 0 and (string.byte(id, -1) + string.byte(id, 1)) % 16 == 0 then
    redis.call('ZREMRANGEBYSCORE', x, '-inf', '(' .. f[2])
  end
end
`

// addAuditScript appends sealed entries to the trail of an existing
// question. KEYS: rec. ARGV: 1 id, 2 the trail's length they follow, 3
// the packed entries (auditPush). Returns 0 when the question does not
// exist, 1 when appended, or {'tail', length, newest entry, agent}.
var addAuditScript = newScript(auditLua + `
local f = redis.call('HMGET', KEYS[1], 'a', 'an')
if not f[1] then return 0 end
local n = auditLen(KEYS[1], f[2])
if tonumber(ARGV[2]) ~= n then return auditTail(KEYS[1], n, f[1]) end
local c = auditCount(ARGV[3])
if c == 0 then return 1 end
redis.call('HSET', KEYS[1], 'an', n + c)
auditPush(KEYS[1], ARGV[1], f[1], n, ARGV[3], false, true)
return 1
`)

// auditAttempts bounds how often an append is sealed again because the
// trail moved.
const auditAttempts = 16

// errAuditTail is a script's answer that the trail had moved: nothing was
// written.
var errAuditTail = errors.New("the audit trail moved")

// maxAuditTails bounds the trails whose end a store remembers.
const maxAuditTails = 8192

// auditState is what a store keeps of the audit trails: their retention,
// and the end of the trails it appended to or read lately.
type auditState struct {
	retention atomic.Int64 // ns; 0: broker.DefaultAuditRetention
	mu        sync.Mutex
	tails     map[string]auditTail
}

// auditTail is the end of a question's trail as this store last saw it:
// its length, its newest entry's hash and the question's agent; and, for
// the resolution's entry, the question as the store last returned it
// (its prompts, policy and votes at revision q.State.Rev), or nil.
type auditTail struct {
	n     int64
	hash  string
	agent string
	q     *broker.Question
}

// SetAuditRetention sets how long a trail is kept after its newest entry
// (broker.AuditRetainer); d <= 0 means broker.DefaultAuditRetention.
func (s *Store) SetAuditRetention(d time.Duration) { s.trails.retention.Store(int64(d)) }

func (s *Store) auditRetention() time.Duration {
	if d := time.Duration(s.trails.retention.Load()); d > 0 {
		return d
	}
	return broker.DefaultAuditRetention
}

func (a *auditState) tail(id string) (auditTail, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.tails[id]
	return t, ok
}

func (a *auditState) setTail(id string, t auditTail) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tails == nil {
		a.tails = make(map[string]auditTail)
	}
	if _, ok := a.tails[id]; !ok && len(a.tails) >= maxAuditTails {
		// Forget half, in the map's order: a trail forgotten costs its
		// next append one more round trip.
		n := 0
		for k := range a.tails {
			delete(a.tails, k)
			if n++; n >= maxAuditTails/2 {
				break
			}
		}
	}
	a.tails[id] = t
}

func (a *auditState) forget(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.tails, id)
}

// snapshot is what a tail keeps of q for its resolution's entry.
func snapshot(q *broker.Question) *broker.Question {
	return &broker.Question{
		ID: q.ID, Agent: q.Agent, Prompts: q.Prompts, Policy: q.Policy,
		State: broker.PolicyState{Rev: q.State.Rev, Votes: q.State.Votes},
	}
}

// sealAfter seals entries of question id after t and packs them for
// auditPush; it returns the packed entries and the trail's end after
// them.
func (s *Store) sealAfter(id string, t auditTail, entries []broker.AuditEntry, now time.Time) (string, auditTail, error) {
	var b strings.Builder
	ret := s.auditRetention()
	b.WriteString(strconv.FormatInt((ret + maxLifetime).Milliseconds(), 10))
	b.WriteByte('\t')
	b.WriteString(strconv.FormatInt(now.Add(-ret).UnixMilli(), 10))
	for _, e := range entries {
		e.Question, e.Agent = id, t.agent
		t.n++
		data, err := broker.SealAudit(t.hash, t.n, &e)
		if err != nil {
			return "", t, err
		}
		t.hash = e.Hash
		b.WriteByte('\t')
		b.WriteString(strconv.FormatInt(e.At.UnixMilli(), 10))
		b.WriteByte('\t')
		b.Write(data)
	}
	return b.String(), t, nil
}

// tailReply reads a {'tail', length, newest entry, agent} answer.
func tailReply(v any) (auditTail, bool) {
	arr, ok := v.([]any)
	if !ok || len(arr) < 4 {
		return auditTail{}, false
	}
	if code, _ := arr[0].(string); code != "tail" {
		return auditTail{}, false
	}
	n, _ := arr[1].(int64)
	last, _ := arr[2].(string)
	agent, _ := arr[3].(string)
	return auditTail{n: n, hash: entryHash(last), agent: agent}, true
}

// entryHash is the hash of a stored entry ("" for none, or for an entry
// written before the chain).
func entryHash(raw string) string {
	if raw == "" {
		return ""
	}
	var e struct {
		Hash string `json:"hash"`
	}
	_ = json.Unmarshal([]byte(raw), &e)
	return e.Hash
}

// expectArg is the trail length an append follows, as a script argument:
// empty when this store does not know the trail, which makes the script
// answer its end.
func expectArg(t auditTail, known bool) string {
	if !known {
		return ""
	}
	return strconv.FormatInt(t.n, 10)
}

// auditPair names the create scripts' pair that carries the sealed audit
// entries of a new question (createWrite).
const auditPair = "\tau"

// createdAudit seals the entries Create appends for new question q (the
// ask, its copies at inProcess) and returns them packed, with the trail's
// end after them.
func (s *Store) createdAudit(q *broker.Question, inProcess []broker.Target) (string, auditTail, error) {
	packed, t, err := s.sealAfter(q.ID, auditTail{agent: q.Agent}, broker.CreatedAudit(q, inProcess), time.Now())
	t.q = snapshot(q)
	return packed, t, err
}

// AddAudit appends entries to the audit trail of a question.
func (s *Store) AddAudit(ctx context.Context, id string, entries ...broker.AuditEntry) error {
	if !validID(id) {
		return fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	t, known := s.trails.tail(id)
	for range auditAttempts {
		packed, next, err := s.sealAfter(id, t, entries, time.Now())
		if err != nil {
			return fmt.Errorf("redis store: audit %s: %w", id, err)
		}
		v, err := addAuditScript.Run(ctx, s.run, []string{s.k.rec(id)}, id, expectArg(t, known), packed).Result()
		if err != nil {
			return wrap("audit", err)
		}
		if moved, ok := tailReply(v); ok {
			if len(entries) == 0 {
				return nil // the question exists; nothing to append
			}
			moved.q = t.q
			t, known = moved, true
			continue
		}
		if n, _ := v.(int64); n == 0 {
			s.trails.forget(id)
			return fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
		}
		s.trails.setTail(id, next)
		return nil
	}
	return fmt.Errorf("redis store: audit %s: the trail kept moving: %w", id, broker.ErrUnavailable)
}

// Audit returns the audit trail of a question, oldest first, also after
// its record is gone.
func (s *Store) Audit(ctx context.Context, id string) ([]broker.AuditEntry, error) {
	if !validID(id) {
		return nil, fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	raw, err := s.c.LRange(ctx, s.k.audit(id), 0, -1).Result()
	if err != nil {
		return nil, wrap("audit", err)
	}
	if len(raw) == 0 {
		n, err := s.c.Exists(ctx, s.k.rec(id)).Result()
		if err != nil {
			return nil, wrap("audit", err)
		}
		if n == 0 {
			return nil, fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
		}
	}
	out := make([]broker.AuditEntry, 0, len(raw))
	for i, r := range raw {
		var e broker.AuditEntry
		if err := json.Unmarshal([]byte(r), &e); err != nil {
			return nil, fmt.Errorf("redis store: audit %s: decode entry %d: %w", id, i+1, err)
		}
		if e.Hash == "" && e.Question == "" {
			// Written before the chain: numbered by its place.
			e.Question, e.Seq = id, int64(i+1)
		}
		out = append(out, e)
	}
	return out, nil
}

// resolveAudited runs resolveScript with args and the resolution's audit
// entry, built from the question as this store last returned it and
// sealed after the trail's end it knows. Without them, or when either
// moved, the script answers the question and the trail's end, changing
// nothing, and the entry is built and sealed again from those. It
// returns the script's answer and the resolved question.
func (s *Store) resolveAudited(ctx context.Context, id string, r broker.Resolution, keys []string, args []any, sent *sentResolution, now time.Time) (any, *broker.Question, error) {
	t, known := s.trails.tail(id)
	for range auditAttempts {
		expect, rev, packed, next := "", "", "", t
		if known && t.q != nil {
			var err error
			if packed, next, err = s.sealAfter(id, t, []broker.AuditEntry{broker.ResolvedAuditOf(t.q, r)}, now); err != nil {
				return nil, nil, fmt.Errorf("redis store: resolve %s: %w", id, err)
			}
			expect, rev = strconv.FormatInt(t.n, 10), strconv.FormatInt(t.q.State.Rev, 10)
		}
		call := append(args[:len(args):len(args)], expect, rev, packed)
		v, err := resolveScript.Run(ctx, s.run, keys, call...).Result()
		if err != nil {
			return nil, nil, wrap("resolve", err)
		}
		q, err := s.mutationResultWith(ctx, "resolve", id, v, sent)
		if errors.Is(err, errAuditTail) {
			t, known = resolveTail(v, q), true
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		next.q = nil // resolved: no entry of its will need it
		s.trails.setTail(id, next)
		return v, q, nil
	}
	return nil, nil, fmt.Errorf("redis store: resolve %s: the audit trail kept moving: %w", id, broker.ErrUnavailable)
}

// resolveTail reads the trail's end from a 'tail' answer of
// resolveScript ({'tail', record, length, newest entry}) about q.
func resolveTail(v any, q *broker.Question) auditTail {
	t := auditTail{agent: q.Agent, q: snapshot(q)}
	if arr, ok := v.([]any); ok && len(arr) >= 4 {
		t.n, _ = arr[2].(int64)
		last, _ := arr[3].(string)
		t.hash = entryHash(last)
	}
	return t
}
