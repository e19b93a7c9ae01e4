package redis

// The script that resolves a question (resolve.go).

// resolveScript is the compare-and-set pending -> terminal. It reads the
// record once (HGETALL), writes the changed fields in one HSET (status,
// resolution, the callback delivery, the edits of the posted copies),
// unindexes the question from the sets it is in (the timer set, derived
// from the due set's name, for layout 3: timers.go), moves its inbox
// entries to the resolved sets (inbox.go), sets the expiries
// (the body's only when the TTL it got at Create ends too soon), and
// answers the record as it now is without reading it again. The
// resolution's audit entry, sealed by the caller after the trail's end it
// knows, is appended in the same step (auditPush: audit.go); when the
// trail's length (field an) or the policy state revision is not the one
// the entry was built for, the script changes nothing and answers the
// record and the trail's end ('tail'), for the caller to build the entry
// again. The trail keeps the time to live it got when it opened (audit.go),
// not the record's.
//
// Off Cluster (KEYS[7] given) it also logs the resolution's event, drops
// the question from its agent's pending set and publishes it, as
// logEventScript does: one step, so no unlogged marker is needed, and no
// entry in ids either: the event's seq goes in the record (field es), in
// the same HSET as the resolution, for Purge to find the event. The
// agent's log and pending set are named by the agent in the record, so
// they are derived from prefixes (one server holds every key there). On
// Cluster the event's keys are in slot {ev}: the script marks the
// question unlogged and Resolve logs the event in a second call.
//
// KEYS: rec, due, rem, lease, outbox, unlogged; off Cluster also
// 7 seq, 8 ids.
// ARGV: 1 resolution json, 2 status, 3 resolvedUs, 4 record ttl ms,
// 5 resolvedNs, 6 id, 7 unloggedTrimBeforeUs, 8 the number of prompts with
// progress the resolution expects, or empty for no condition, 9 the
// policy state revision it expects (field pv), or empty, 10 nowUs,
// 11 the version of the body the caller keeps (bodies.go) or empty; off
// Cluster also 12 the event's time (RFC 3339), 13 feed channel, 14 event
// trimBeforeUs, 15 agent log prefix, 16 pending set prefix (empty on
// Cluster); 17 the audit trail's length the resolution's entry follows
// (empty: unknown), 18 the policy state revision it was built at, 19 the
// packed entry.
// Returns {code, {packed HGETALL, body}} (an empty body when the record's bv is
// ARGV[11]: the caller has it) and, when it logged the event, its seq;
// for 'tail', the trail's length and newest entry after the record.
var resolveScript = newScript(prelude + outboxLua + sometimesLua + eventLua + timersLua + auditLua + inboxLua + `
local h = redis.call('HGETALL', KEYS[1])
if #h == 0 then return {'nf'} end
local r = {}
for i = 1, #h, 2 do r[h[i]] = h[i + 1] end
local function now()
  if ARGV[11] ~= '' and r.bv == ARGV[11] then return {packed(h), ''} end
  return {packed(h), redis.call('GET', jkey(KEYS[1])) or ''}
end
if r.st ~= 'pending' then return {'closed', now()} end
if ARGV[8] ~= '' then
  local n = 0
  for i = 0, tonumber(r.np or '0') - 1 do if r['p' .. i] then n = n + 1 end end
  if n ~= tonumber(ARGV[8]) then return {'stale', now()} end
end
if ARGV[9] ~= '' and (r.pv or '0') ~= ARGV[9] then return {'stale', now()} end
local an = auditLen(KEYS[1], r.an)
if tonumber(ARGV[17]) ~= an or (r.pv or '0') ~= ARGV[18] then
  return {'tail', now(), an, redis.call('LINDEX', audkey(KEYS[1]), -1) or ''}
end
local id = ARGV[6]
local fv = {'st', ARGV[2], 'r', ARGV[1], 'ra', ARGV[5], 'an', an + auditCount(ARGV[19])}
if r.cb then
  for _, x in ipairs({'ds', 'pending', 'da', '0', 'dn', ARGV[5], 'dc', ARGV[5], 'du', ARGV[5]}) do fv[#fv + 1] = x end
  redis.call('ZADD', KEYS[5], ARGV[3], id)
end
local po = {}
edits(r, id, ARGV[3], ARGV[10], fv, po)
local seq = false
if KEYS[7] then
  local ev = {question_id = id, agent = r.a or '', status = ARGV[2], at = ARGV[12]}
  if r.se and r.se ~= '' then ev.session_id = r.se end
  local agent = r.a or ''
  redis.call('ZREM', ARGV[16] .. agent, id)
  seq = logNew(KEYS[7], KEYS[8], ARGV[15] .. agent, id, agent,
    ARGV[3] .. ' ' .. cjson.encode(ev), ARGV[13], ARGV[14], true)
  if seq % 16 == 0 then redis.call('ZREMRANGEBYSCORE', ARGV[16] .. agent, '-inf', '(' .. ARGV[10]) end
  fv[#fv + 1] = 'es'; fv[#fv + 1] = tostring(seq)
end
redis.call('HSET', KEYS[1], unpack(fv))
if #po > 0 then redis.call('ZADD', pokey(KEYS[2]), unpack(po)) end
if (tonumber(r.lv) or 1) < 3 or r.ex then
  -- Layouts 1 and 2 index deadlines and reminders in due and rem; a
  -- snooze by an older version does so for layout 3 too (timers.go).
  redis.call('ZREM', KEYS[2], id)
  if r.rt then redis.call('ZREM', KEYS[3], id) end
end
if (tonumber(r.lv) or 1) >= 3 and (r.dl or r.ex or r.rt) then redis.call('ZREM', tmkey(KEYS[2]), id) end
if r.lu then redis.call('ZREM', KEYS[4], id) end
local trim = sometimes(id)
-- The copies' inbox entries move to the resolved sets; entries resolved
-- longer ago than a record lives are trimmed now and then.
for i = 1, tonumber(r.mn or '0') do
  local ch = copyChannel(r['m' .. i])
  if ch then
    redis.call('ZREM', ikey(KEYS[1], 'io', ch), id)
    redis.call('ZADD', ikey(KEYS[1], 'ih', ch), msOf(ARGV[3]), id)
    if trim then
      redis.call('ZREMRANGEBYSCORE', ikey(KEYS[1], 'ih', ch), '-inf',
        '(' .. string.format('%d', math.floor(tonumber(ARGV[10]) / 1000) - tonumber(ARGV[4])))
    end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
-- The body keeps the TTL Create gave it when that outlasts the record's
-- (bodySlack in create.go).
if not r.bx or tonumber(ARGV[10]) + tonumber(ARGV[4]) * 1000 > tonumber(r.bx) then
  redis.call('PEXPIRE', jkey(KEYS[1]), ARGV[4])
end
if r.hf then redis.call('PEXPIRE', fkey(KEYS[1]), ARGV[4]) end
-- A trail from before the record kept its length may have no time to
-- live yet: the resolution gives it one.
auditPush(KEYS[1], id, r.a, an, ARGV[19], false, not r.an)
if not KEYS[7] then
  redis.call('ZADD', KEYS[6], ARGV[3], id)
  if trim then redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', '(' .. ARGV[7]) end
end
-- The record as it now is: h with fv applied.
local pos = {}
for i = 1, #h, 2 do pos[h[i]] = i end
for i = 1, #fv, 2 do
  local at = pos[fv[i]]
  if at then h[at + 1] = fv[i + 1] else h[#h + 1] = fv[i]; h[#h + 1] = fv[i + 1]; pos[fv[i]] = #h - 1 end
end
local out = {'ok', now()}
if seq then out[3] = seq end
return out
`)
