package redis

// prelude gives scripts the question body key of a record key
// ("...q:<id>" -> "...j:<id>", same tag, so same slot), its files key
// ("...f:<id>", attachments.go), packed(h), a flat HGETALL reply as one
// string (fromWhole), and whole(k), the record and its body as
// {packed HGETALL, body}.
//
// A record goes back packed because a reply of many strings costs the
// client two allocations per string (its bytes and the interface that
// holds it), about 120 for a record; one string costs one, and the
// record's fields are slices of it. Packed is the names and values
// joined by NUL bytes, which table.concat does in C; a record that holds
// a NUL goes back as the array it is, since it could not be split again
// (BenchmarkRecordReply; a length before each string would cost the
// script more than the client saves).
const prelude = `
local function jkey(k) return (string.gsub(k, 'q:([^:]*)$', 'j:%1')) end
local function fkey(k) return (string.gsub(k, 'q:([^:]*)$', 'f:%1')) end
local function akey(k) return (string.gsub(k, 'q:([^:]*)$', 'au:%1')) end
local function packed(h)
  if string.find(table.concat(h), '\0', 1, true) then return h end
  return table.concat(h, '\0')
end
local function whole(k) return {packed(redis.call('HGETALL', k)), redis.call('GET', jkey(k)) or ''} end
`

// Every script but createIdemScript touches keys of one hash slot only:
// the keys it is given and record keys it derives from a prefix that
// carries the same tag. createIdemScript runs only where one server holds
// every key (not on Cluster), and is given every key it touches.

// sometimesLua defines sometimes(id): true for about one id in 16 (ids
// are random), so that a script trims an index by age on one write in 16
// rather than on every write. Entries older than the horizon belong to
// expired records only; List drops those it meets anyway.
const sometimesLua = `
local function sometimes(id) return (string.byte(id, -1) + string.byte(id, 1)) % 16 == 0 end
`

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

// progressScript sets a per-prompt field of a pending question.
// KEYS: rec. ARGV: 1 field, 2 value, 3 prompt index, 4 first-wins (1|0).
var progressScript = newScript(prelude + `
local f = redis.call('HMGET', KEYS[1], 'st', 'np')
if not f[1] then return {'nf'} end
if f[1] ~= 'pending' then return {'closed', whole(KEYS[1])} end
if tonumber(ARGV[3]) >= tonumber(f[2]) then return {'range', whole(KEYS[1])} end
if ARGV[4] == '1' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return {'conflict', whole(KEYS[1])}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {'ok', whole(KEYS[1])}
`)

// claimReminderScript marks reminder n as sent and moves the question to
// its next reminder: in the rem set for layouts 1 and 2, in the timer set
// (at the earlier of that reminder and the deadline) for layout 3.
// KEYS: rec, rem. ARGV: 1 n, 2 id.
// Returns -1 not found, 0 not claimed, 1 claimed.
var claimReminderScript = newScript(timersLua + `
local f = redis.call('HMGET', KEYS[1], 'st', 'rs', 'rt', 'lv', 'ex', 'dl')
if not f[1] then return -1 end
if f[1] ~= 'pending' then return 0 end
local n = tonumber(ARGV[1])
if (tonumber(f[2]) or 0) >= n then return 0 end
redis.call('HSET', KEYS[1], 'rs', n)
local nextAt = nextTimer(f[3], n, nil)
if (tonumber(f[4]) or 1) >= 3 then
  local t = nextTimer(f[3], n, f[5] or f[6])
  if t then redis.call('ZADD', tmkey(KEYS[2]), t, ARGV[2]) else redis.call('ZREM', tmkey(KEYS[2]), ARGV[2]) end
  -- Snoozed by an older version, it may have an entry in rem as well.
  if f[5] then
    if nextAt then redis.call('ZADD', KEYS[2], 'XX', nextAt, ARGV[2]) else redis.call('ZREM', KEYS[2], ARGV[2]) end
  end
  return 1
end
if nextAt then redis.call('ZADD', KEYS[2], nextAt, ARGV[2]) else redis.call('ZREM', KEYS[2], ARGV[2]) end
return 1
`)

// renewLeaseScript moves the lease of a pending question.
// KEYS: rec, lease. ARGV: 1 untilNs, 2 untilUs, 3 id.
var renewLeaseScript = newScript(prelude + `
local st = redis.call('HGET', KEYS[1], 'st')
if not st then return {'nf'} end
if st ~= 'pending' then return {'closed', whole(KEYS[1])} end
redis.call('HSET', KEYS[1], 'lu', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return {'ok'}
`)

// addMessageScript appends a posted copy (field m<n>, n counted in mn)
// and its audit entry (auditPush: audit.go), and indexes its chat and
// its channel's inbox (inbox.go). KEYS:
// rec, chat index (none for a copy without a chat: createWrite). ARGV: 1
// line, 2 id, 3 ttl ms (0: this process renewed the index less than a
// window ago, ttlmemo.go), 4 trimBeforeUs, 5 the audit trail's length the
// entry follows, 6 the packed entry. Returns 0 when the question does
// not exist, 1 when added, or the trail's end when it is not ARGV[5]
// (auditTail), having changed nothing.
var addMessageScript = newScript(sometimesLua + auditLua + inboxLua + `
local f = redis.call('HMGET', KEYS[1], 'cr', 'mn', 'a', 'an', 'st', 'ra')
if not f[1] then return 0 end
local an = auditLen(KEYS[1], f[4])
if tonumber(ARGV[5]) ~= an then return auditTail(KEYS[1], an, f[3]) end
local n = (tonumber(f[2]) or 0) + 1
redis.call('HSET', KEYS[1], 'mn', n, 'm' .. n, ARGV[1], 'an', an + auditCount(ARGV[6]))
auditPush(KEYS[1], ARGV[2], f[3], an, ARGV[6], false, true)
if f[5] == 'pending' then
  redis.call('ZADD', ikey(KEYS[1], 'io', copyChannel(ARGV[1])), msOf(f[1]), ARGV[2])
elseif f[6] then
  redis.call('ZADD', ikey(KEYS[1], 'ih', copyChannel(ARGV[1])), string.sub(f[6], 1, -7), ARGV[2])
end
if not KEYS[2] then return 1 end
redis.call('ZADD', KEYS[2], f[1], ARGV[2])
if sometimes(ARGV[2]) then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4]) end
if ARGV[3] ~= '0' then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return 1
`)

// listScript returns records of one shard from an index, newest first,
// filtered; entries whose record expired are dropped from the index.
// KEYS: index. ARGV: 1 limit, 2 agent, 3 session, 4 status, 5 record
// key prefix, 6 max entries to scan, 7 channel whose copies must exist
// (empty for any).
var listScript = newIdempotentScript(prelude + `
local function posted(k, ch)
  if ch == '' then return true end
  local n = tonumber(redis.call('HGET', k, 'mn') or '0')
  for i = 1, n do
    local m = redis.call('HGET', k, 'm' .. i)
    if m and string.sub(m, 1, #ch + 1) == ch .. '\t' then return true end
  end
  return false
end
local out, dead = {}, {}
local limit, maxScan = tonumber(ARGV[1]), tonumber(ARGV[6])
local start, batch = 0, 200
while #out < limit and start < maxScan do
  local ids = redis.call('ZREVRANGE', KEYS[1], start, start + batch - 1)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    local k = ARGV[5] .. id
    local f = redis.call('HMGET', k, 'st', 'a', 'se')
    if not f[1] then
      dead[#dead + 1] = id
    elseif (ARGV[2] == '' or f[2] == ARGV[2]) and (ARGV[3] == '' or f[3] == ARGV[3]) and (ARGV[4] == '' or f[1] == ARGV[4]) and posted(k, ARGV[7]) then
      out[#out + 1] = whole(k)
      if #out >= limit then break end
    end
  end
  start = start + batch
end
for _, id in ipairs(dead) do redis.call('ZREM', KEYS[1], id) end
return out
`)

// claimDeliveryScript holds one due delivery. KEYS: rec, outbox.
// ARGV: 1 id, 2 nowUs, 3 holdUntilUs, 4 holdUntilNs, 5 nowNs.
var claimDeliveryScript = newScript(`
local sc = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not sc or tonumber(sc) > tonumber(ARGV[2]) then return {} end
if redis.call('HGET', KEYS[1], 'ds') ~= 'pending' then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {}
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[1], 'dn', ARGV[4])
return redis.call('HGETALL', KEYS[1])
`)

// updateDeliveryScript records an attempt. KEYS: rec, outbox.
// ARGV: 1 id, 2 state, 3 attempts, 4 nextNs, 5 nextUs, 6 lastError,
// 7 updatedNs, 8 claimNs (empty: no claim to check). Returns 0 when there
// is no such delivery, -1 when the claim is no longer the delivery's.
var updateDeliveryScript = newScript(`
local ds = redis.call('HGET', KEYS[1], 'ds')
if not ds then return 0 end
if ARGV[8] ~= '' and (ds ~= 'pending' or redis.call('HGET', KEYS[1], 'dn') ~= ARGV[8]) then return -1 end
redis.call('HSET', KEYS[1], 'ds', ARGV[2], 'da', ARGV[3], 'dn', ARGV[4], 'de', ARGV[6], 'du', ARGV[7])
if ARGV[2] == 'pending' then redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1]) else redis.call('ZREM', KEYS[2], ARGV[1]) end
return 1
`)

// eventLua defines logNew(seq, ids, agentLog, id, agent, member, feed,
// trimBeforeUs, inRecord): it appends a resolution's event to its agent's
// log (the caller has made sure it is not logged yet), maps the id to it
// in ids unless inRecord (the caller keeps the seq in the question's
// record), publishes "<id>\t<agent>" on the feed and returns the event's
// seq. On about one event in 16, chosen by the question's id with
// sometimes (sometimesLua, which a script puts before eventLua; not by
// seq, which agents resolving in turn would share out unevenly), it trims
// the agent's events older than trimBeforeUs (up to 32 of them). There is
// no log of every agent's events: Events reads them from the agents' logs
// (events.go).
//
// trimLog(log, ids, trimBeforeUs, n) drops the log's events older than
// trimBeforeUs among its first n, and their entries in ids, in one
// ZREMRANGEBYSCORE and one HDEL; it returns how many it dropped.
const eventLua = `
local function trimLog(klog, kids, cutoff, n)
  cutoff = tonumber(cutoff)
  local old = redis.call('ZRANGE', klog, 0, n - 1, 'WITHSCORES')
  local last, keys, d = nil, {}, 0
  for i = 1, #old, 2 do
    local head = string.match(old[i], '^%d+ ')
    if not head or tonumber(head) >= cutoff then break end
    local ok, ev = pcall(cjson.decode, string.sub(old[i], string.len(head) + 1))
    if ok and type(ev) == 'table' then
      local key = ev.question_id or ''
      if ev.type == 'extended' and type(ev.extension) == 'table' then key = key .. '\tx' .. tostring(ev.extension.snoozes) end
      keys[#keys + 1] = key
    end
    last, d = old[i + 1], d + 1
  end
  if not last then return 0 end
  redis.call('ZREMRANGEBYSCORE', klog, '-inf', last)
  if #keys > 0 then redis.call('HDEL', kids, unpack(keys)) end
  return d
end
local function logNew(kseq, kids, kagent, id, agent, member, feed, cutoff, inRecord)
  local seq = redis.call('INCR', kseq)
  redis.call('ZADD', kagent, seq, member)
  if not inRecord then redis.call('HSET', kids, id, seq .. ' ' .. agent) end
  redis.call('PUBLISH', feed, id .. '\t' .. agent)
  if sometimes(id) then trimLog(kagent, kids, cutoff, 32) end
  return seq
end
`

// logEventScript appends the resolution event of a question once, drops
// the question from its agent's pending set, and publishes "<id>\t<agent>"
// on the feed. KEYS: seq, ids, agent log, agent's pending set.
// ARGV: 1 id, 2 agent, 3 member ("<atUs> <json>"), 4 feed channel,
// 5 trimBeforeUs. Returns the event's seq.
var logEventScript = newIdempotentScript(sometimesLua + eventLua + `
redis.call('ZREM', KEYS[4], ARGV[1])
local have = redis.call('HGET', KEYS[2], ARGV[1])
if have then return tonumber(string.match(have, '^(%d+)')) end
return logNew(KEYS[1], KEYS[2], KEYS[3], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], false)
`)

// purgeEventsScript drops the events of purged questions.
// KEYS: ids. ARGV: 1 agent log prefix, 2.. purged questions, each
// "<id>" (its event is found in ids) or "<id> <seq> <agent>" (its record
// named the event: resolveScript).
var purgeEventsScript = newIdempotentScript(`
for i = 2, #ARGV do
  local id, named = string.match(ARGV[i], '^([^ ]*) (.*)$')
  local v = named
  if not id then
    id = ARGV[i]
    v = redis.call('HGET', KEYS[1], id)
  end
  if v then
    local seq, agent = string.match(v, '^(%d+) (.*)$')
    redis.call('ZREMRANGEBYSCORE', ARGV[1] .. agent, seq, seq)
    if not named then redis.call('HDEL', KEYS[1], id) end
  end
end
return 1
`)

// trimLogScript drops a log's events older than a time, up to a batch,
// and their entries in ids (trimLog in eventLua): Purge's pass over every
// agent's log, and over the log of every agent's events that older
// versions kept. KEYS: log, ids. ARGV: 1 trimBeforeUs, 2 batch. Returns
// how many it dropped.
var trimLogScript = newIdempotentScript(sometimesLua + eventLua + `
return trimLog(KEYS[1], KEYS[2], ARGV[1], tonumber(ARGV[2]))
`)

// purgeScript removes questions of one shard resolved before a time. It
// reads them from the shard's index of every question (a question
// resolved before the time was created before it) and checks each
// record's resolution time (ra, ns), and removes each with its index
// entries (its inbox entries among them: inbox.go); entries whose record
// is gone are dropped. Off the first batch it also empties the shard's done set of
// entries before the time: older versions indexed resolutions there.
// KEYS: all, done. ARGV: 1 beforeUs, 2 shard key prefix ("<p>{sN}:"),
// 3 lookup key prefix, 4 limit, 5 offset (entries kept by earlier calls).
// Returns {removed, {cross-slot keys to delete}, {questions whose events
// go, as purgeEventsScript takes them}, entries read, entries kept}.
var purgeScript = newScript(prelude + `
local removed, kept, cross, gone = 0, 0, {}, {}
local before = tonumber(ARGV[1])
if ARGV[5] == '0' then redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1]) end
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', tonumber(ARGV[5]), tonumber(ARGV[4]))
for _, id in ipairs(ids) do
  local rec = ARGV[2] .. 'q:' .. id
  local f = redis.call('HMGET', rec, 'a', 'se', 'mn', 'k', 'ds', 'st', 'es', 'ra')
  -- ra is in ns; its first digits are the µs, exact in a Lua number.
  local ra = f[8] and tonumber(string.sub(f[8], 1, -4)) or 0
  if f[6] and (f[6] == 'pending' or f[5] == 'pending' or ra > before) then
    kept = kept + 1 -- open, resolved since, or its callback is still being delivered
  else
    if f[6] then
      redis.call('ZREM', ARGV[2] .. 'ag:' .. f[1], id)
      if f[2] then
        redis.call('ZREM', ARGV[2] .. 'as:' .. f[1] .. '\0' .. f[2], id)
        redis.call('ZREM', ARGV[2] .. 'ss:' .. f[2], id) -- an older version's index
      end
      for i = 1, tonumber(f[3] or '0') do
        local line = redis.call('HGET', rec, 'm' .. i) or ''
        local ch, chat, msg = string.match(line, '^([^\t]*)\t([^\t]*)\t([^\t]*)\t')
        if ch then
          if chat ~= '' then redis.call('ZREM', ARGV[2] .. 'ch:' .. ch .. '\0' .. chat, id) end
          redis.call('ZREM', ARGV[2] .. 'io:' .. ch, id)
          redis.call('ZREM', ARGV[2] .. 'ih:' .. ch, id)
          if msg ~= '' then cross[#cross + 1] = ARGV[3] .. ch .. '\0' .. chat .. '\0' .. msg end
        end
      end
      if f[4] then cross[#cross + 1] = f[4] end
      redis.call('DEL', rec, jkey(rec), fkey(rec)) -- the audit trail stays (audit.go)
      removed = removed + 1
    else
      redis.call('DEL', jkey(rec)) -- the record expired before its body
    end
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', ARGV[2] .. 'unl', id)
    if f[7] then gone[#gone + 1] = id .. ' ' .. f[7] .. ' ' .. (f[1] or '') else gone[#gone + 1] = id end
  end
end
return {removed, cross, gone, #ids, kept}
`)
