package redis

import goredis "github.com/redis/go-redis/v9"

// prelude gives scripts the question body key of a record key
// ("...q:<id>" -> "...j:<id>", same tag, so same slot), its files key
// ("...f:<id>", attachments.go) and whole(k), the
// record and its body as {HGETALL, body}.
const prelude = `
local function jkey(k) return (string.gsub(k, 'q:([^:]*)$', 'j:%1')) end
local function fkey(k) return (string.gsub(k, 'q:([^:]*)$', 'f:%1')) end
local function akey(k) return (string.gsub(k, 'q:([^:]*)$', 'au:%1')) end
local function whole(k) return {redis.call('HGETALL', k), redis.call('GET', jkey(k)) or ''} end
`

// Every script but createIdemScript touches keys of one hash slot only:
// the keys it is given and record keys it derives from a prefix that
// carries the same tag. createIdemScript runs only where one server holds
// every key (not on Cluster), and is given every key it touches.

// createWrite is the part of the create scripts that writes a new
// question: its record, its body and its index entries; and admit, which
// counts it among its agent's pending questions unless they are at the
// cap.
// KEYS: 1 rec, 2 body, 3 due, 4 rem, 5 lease, 6 all, 7 agent, 8 session.
// ARGV: 1 id, 2 json, 3 agent, 4 session, 5 createdUs, 6 expiresUs|empty,
// 7 reminders csv|empty, 8 nextReminderUs|empty, 9 leaseUntilNs|empty,
// 10 leaseUntilUs, 11 idemKey|empty, 12 callbackURL|empty, 13 prompts,
// 14 indexTTLms, 15 trimBeforeUs, 16 remindersSent, 17 pending cap (0:
// none), 18 pending entry's end (µs), 19 nowUs; from ARGV[extra] on,
// field/value pairs of initial progress and selections, and the post
// tasks (fields "o\t...", platform_outbox.go), which also enter the
// shard's platform outbox.
const createWrite = admitFunc + outboxLua + `
local function write(extra)
  local id = ARGV[1]
  redis.call('SET', KEYS[2], ARGV[2])
  redis.call('HSET', KEYS[1], 'st', 'pending', 'a', ARGV[3], 'cr', ARGV[5], 'np', ARGV[13])
  if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'se', ARGV[4]) end
  if ARGV[6] ~= '' then redis.call('ZADD', KEYS[3], ARGV[6], id) end
  if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'rt', ARGV[7], 'rs', ARGV[16]) end
  if ARGV[8] ~= '' then redis.call('ZADD', KEYS[4], ARGV[8], id) end
  if ARGV[9] ~= '' then
    redis.call('HSET', KEYS[1], 'lu', ARGV[9])
    redis.call('ZADD', KEYS[5], ARGV[10], id)
  end
  if ARGV[11] ~= '' then redis.call('HSET', KEYS[1], 'k', ARGV[11]) end
  if ARGV[12] ~= '' then redis.call('HSET', KEYS[1], 'cb', ARGV[12]) end
  for i = extra, #ARGV, 2 do
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
    if string.sub(ARGV[i], 1, 2) == 'o\t' then
      redis.call('ZADD', pokey(KEYS[3]), tsplit(ARGV[i + 1])[3], id .. string.sub(ARGV[i], 2))
    end
  end
  local ttl = tonumber(ARGV[14])
  local function index(k, expire)
    redis.call('ZADD', k, ARGV[5], id)
    redis.call('ZREMRANGEBYSCORE', k, '-inf', '(' .. ARGV[15])
    if expire and redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
  end
  index(KEYS[6], false)
  index(KEYS[7], true)
  if ARGV[4] ~= '' then index(KEYS[8], true) end
end
`

// admitFunc defines admit(k, id, cap, endUs, nowUs): it drops the
// entries of the pending set k whose end (their question's deadline plus
// an hour) is before now, then adds id with score endUs unless the set
// holds cap entries already (0: no cap). It returns 1 when it added the
// id, 2 when the id was there already, 0 when the cap refuses it.
const admitFunc = `
local function admit(k, id, cap, endUs, nowUs)
  redis.call('ZREMRANGEBYSCORE', k, '-inf', '(' .. nowUs)
  if redis.call('ZSCORE', k, id) then return 2 end
  cap = tonumber(cap)
  if cap > 0 and redis.call('ZCARD', k) >= cap then return 0 end
  redis.call('ZADD', k, endUs, id)
  return 1
end
`

// createScript stores a new question and its index entries, all in the
// question's shard. KEYS and ARGV as createWrite, pairs from ARGV[20];
// with a KEYS[9], the agent's pending set (off Cluster), it admits the
// question there first. Returns 0 when the id is taken, -1 when the cap
// refuses it, 1 when stored.
var createScript = goredis.NewScript(createWrite + `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if KEYS[9] and admit(KEYS[9], ARGV[1], ARGV[17], ARGV[18], ARGV[19]) == 0 then return -1 end
write(20)
return 1
`)

// createIdemScript reserves an idempotency key and stores the question in
// one step, for servers where every key lives on one node (standalone,
// Sentinel): the key and the pending set are in other slots than the
// record. KEYS: as createWrite, then 9 idem, 10 pending set. ARGV: as
// createWrite, then 20 nowMs, 21 "1" to take the key over when it still
// names ARGV[22]; pairs from ARGV[23]. Returns {'ok'}, {'taken'} (the id
// is in use; the key is left alone), {'full'} (the cap refuses it) or
// {'have', id, reservedMs} (the key names another question).
var createIdemScript = goredis.NewScript(createWrite + `
local v = redis.call('GET', KEYS[9])
if v then
  local old, t = string.match(v, '^([^:]*):(%d+)$')
  old = old or ''
  if ARGV[21] ~= '1' or old ~= ARGV[22] then return {'have', old, t or '0'} end
end
if redis.call('EXISTS', KEYS[1]) == 1 then return {'taken'} end
if admit(KEYS[10], ARGV[1], ARGV[17], ARGV[18], ARGV[19]) == 0 then return {'full'} end
redis.call('SET', KEYS[9], ARGV[1] .. ':' .. ARGV[20], 'PX', ARGV[14])
write(23)
return {'ok'}
`)

// admitScript counts a question among its agent's pending ones on
// Cluster, where the set is in another slot than the record: Create runs
// it before createScript and undoes it when the id is taken. KEYS:
// pending set. ARGV: 1 id, 2 cap, 3 endUs, 4 nowUs. Returns as admit.
var admitScript = goredis.NewScript(admitFunc + `
return admit(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
`)

// resolveScript is the compare-and-set pending -> terminal.
// KEYS: rec, due, rem, lease, done, outbox, unlogged.
// ARGV: 1 resolution json, 2 status, 3 resolvedUs, 4 record ttl ms,
// 5 resolvedNs, 6 id, 7 doneTrimBeforeUs, 8 the number of prompts with
// progress the resolution expects, or empty for no condition, 9 the
// policy state revision it expects (field pv), or empty, 10 nowUs.
var resolveScript = goredis.NewScript(prelude + outboxLua + `
local st = redis.call('HGET', KEYS[1], 'st')
if not st then return {'nf'} end
if st ~= 'pending' then return {'closed', whole(KEYS[1])} end
if ARGV[8] ~= '' then
  local n, np = 0, tonumber(redis.call('HGET', KEYS[1], 'np') or '0')
  for i = 0, np - 1 do n = n + redis.call('HEXISTS', KEYS[1], 'p' .. i) end
  if n ~= tonumber(ARGV[8]) then return {'stale', whole(KEYS[1])} end
end
if ARGV[9] ~= '' and (redis.call('HGET', KEYS[1], 'pv') or '0') ~= ARGV[9] then
  return {'stale', whole(KEYS[1])}
end
local id = ARGV[6]
redis.call('HSET', KEYS[1], 'st', ARGV[2], 'r', ARGV[1])
editAll(KEYS[1], KEYS[2], id, ARGV[3], ARGV[10])
redis.call('ZREM', KEYS[2], id)
redis.call('ZREM', KEYS[3], id)
redis.call('ZREM', KEYS[4], id)
if redis.call('HEXISTS', KEYS[1], 'cb') == 1 then
  redis.call('HSET', KEYS[1], 'ds', 'pending', 'da', 0, 'dn', ARGV[5], 'dc', ARGV[5], 'du', ARGV[5])
  redis.call('ZADD', KEYS[6], ARGV[3], id)
end
redis.call('ZADD', KEYS[5], ARGV[3], id)
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', '(' .. ARGV[7])
redis.call('HSET', KEYS[1], 'ra', ARGV[5])
redis.call('ZADD', KEYS[7], ARGV[3], id)
redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', '(' .. ARGV[7])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', jkey(KEYS[1]), ARGV[4])
redis.call('PEXPIRE', fkey(KEYS[1]), ARGV[4])
redis.call('PEXPIRE', akey(KEYS[1]), ARGV[4])
return {'ok', whole(KEYS[1])}
`)

// progressScript sets a per-prompt field of a pending question.
// KEYS: rec. ARGV: 1 field, 2 value, 3 prompt index, 4 first-wins (1|0).
var progressScript = goredis.NewScript(prelude + `
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
// its next reminder. KEYS: rec, rem. ARGV: 1 n, 2 id.
// Returns -1 not found, 0 not claimed, 1 claimed.
var claimReminderScript = goredis.NewScript(`
local f = redis.call('HMGET', KEYS[1], 'st', 'rs', 'rt')
if not f[1] then return -1 end
if f[1] ~= 'pending' then return 0 end
local n = tonumber(ARGV[1])
if (tonumber(f[2]) or 0) >= n then return 0 end
redis.call('HSET', KEYS[1], 'rs', n)
local i, nextAt = 0, nil
for t in string.gmatch(f[3] or '', '[^,]+') do
  i = i + 1
  if i == n + 1 then nextAt = t end
end
if nextAt then redis.call('ZADD', KEYS[2], nextAt, ARGV[2]) else redis.call('ZREM', KEYS[2], ARGV[2]) end
return 1
`)

// renewLeaseScript moves the lease of a pending question.
// KEYS: rec, lease. ARGV: 1 untilNs, 2 untilUs, 3 id.
var renewLeaseScript = goredis.NewScript(prelude + `
local st = redis.call('HGET', KEYS[1], 'st')
if not st then return {'nf'} end
if st ~= 'pending' then return {'closed', whole(KEYS[1])} end
redis.call('HSET', KEYS[1], 'lu', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return {'ok'}
`)

// addMessageScript appends a posted copy (field m<n>, n counted in mn)
// and indexes its chat. KEYS: rec, chat index. ARGV: 1 line, 2 id,
// 3 ttl ms, 4 trimBeforeUs. Returns 0 when the question does not exist.
var addMessageScript = goredis.NewScript(`
local cr = redis.call('HGET', KEYS[1], 'cr')
if not cr then return 0 end
local n = redis.call('HINCRBY', KEYS[1], 'mn', 1)
redis.call('HSET', KEYS[1], 'm' .. n, ARGV[1])
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[2], cr, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4])
if redis.call('PTTL', KEYS[2]) < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1
`)

// listScript returns records of one shard from an index, newest first,
// filtered; entries whose record expired are dropped from the index.
// KEYS: index. ARGV: 1 limit, 2 agent, 3 session, 4 status, 5 record
// key prefix, 6 max entries to scan, 7 channel whose copies must exist
// (empty for any).
var listScript = goredis.NewScript(prelude + `
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
var claimDeliveryScript = goredis.NewScript(`
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
var updateDeliveryScript = goredis.NewScript(`
local ds = redis.call('HGET', KEYS[1], 'ds')
if not ds then return 0 end
if ARGV[8] ~= '' and (ds ~= 'pending' or redis.call('HGET', KEYS[1], 'dn') ~= ARGV[8]) then return -1 end
redis.call('HSET', KEYS[1], 'ds', ARGV[2], 'da', ARGV[3], 'dn', ARGV[4], 'de', ARGV[6], 'du', ARGV[7])
if ARGV[2] == 'pending' then redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1]) else redis.call('ZREM', KEYS[2], ARGV[1]) end
return 1
`)

// logEventScript appends the resolution event of a question once, drops
// the question from its agent's pending set, and publishes "<id>\t<agent>"
// on the feed. KEYS: seq, log, ids, agent log, agent's pending set.
// ARGV: 1 id, 2 agent, 3 member ("<atUs> <json>"), 4 feed channel,
// 5 trimBeforeUs, 6 agent log prefix. Returns the event's seq.
var logEventScript = goredis.NewScript(`
redis.call('ZREM', KEYS[5], ARGV[1])
local have = redis.call('HGET', KEYS[3], ARGV[1])
if have then return tonumber(string.match(have, '^(%d+)')) end
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], seq, ARGV[3])
redis.call('ZADD', KEYS[4], seq, ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], seq .. ' ' .. ARGV[2])
redis.call('PUBLISH', ARGV[4], ARGV[1] .. '\t' .. ARGV[2])
local cutoff = tonumber(ARGV[5])
local old = redis.call('ZRANGE', KEYS[2], 0, 3, 'WITHSCORES')
for i = 1, #old, 2 do
  local at = tonumber(string.match(old[i], '^(%d+) '))
  if not at or at >= cutoff then break end
  local ev = cjson.decode(string.sub(old[i], string.len(string.match(old[i], '^%d+ ')) + 1))
  redis.call('ZREMRANGEBYSCORE', KEYS[2], old[i + 1], old[i + 1])
  redis.call('ZREMRANGEBYSCORE', ARGV[6] .. (ev.agent or ''), old[i + 1], old[i + 1])
  local key = ev.question_id or ''
  if ev.type == 'extended' and type(ev.extension) == 'table' then key = key .. '\tx' .. tostring(ev.extension.snoozes) end
  redis.call('HDEL', KEYS[3], key)
end
return seq
`)

// purgeEventsScript drops the events of purged questions.
// KEYS: log, ids. ARGV: 1 agent log prefix, 2.. ids.
var purgeEventsScript = goredis.NewScript(`
for i = 2, #ARGV do
  local v = redis.call('HGET', KEYS[2], ARGV[i])
  if v then
    local seq, agent = string.match(v, '^(%d+) (.*)$')
    redis.call('ZREMRANGEBYSCORE', KEYS[1], seq, seq)
    redis.call('ZREMRANGEBYSCORE', ARGV[1] .. agent, seq, seq)
    redis.call('HDEL', KEYS[2], ARGV[i])
  end
end
return 1
`)

// purgeScript removes questions of one shard resolved before a time.
// KEYS: done, all. ARGV: 1 beforeUs, 2 shard key prefix ("<p>{sN}:"),
// 3 lookup key prefix, 4 limit, 5 offset (entries kept by earlier calls).
// Returns {removed, {cross-slot keys to delete}, {ids whose events go},
// entries read, entries kept}.
var purgeScript = goredis.NewScript(prelude + `
local removed, kept, cross, gone = 0, 0, {}, {}
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', tonumber(ARGV[5]), tonumber(ARGV[4]))
for _, id in ipairs(ids) do
  local rec = ARGV[2] .. 'q:' .. id
  local f = redis.call('HMGET', rec, 'a', 'se', 'mn', 'k', 'ds', 'st')
  if f[6] and f[5] == 'pending' then
    kept = kept + 1 -- its callback is still being delivered
  else
    if f[6] then
      redis.call('ZREM', ARGV[2] .. 'ag:' .. f[1], id)
      if f[2] then redis.call('ZREM', ARGV[2] .. 'ss:' .. f[2], id) end
      for i = 1, tonumber(f[3] or '0') do
        local line = redis.call('HGET', rec, 'm' .. i) or ''
        local ch, chat, msg = string.match(line, '^([^\t]*)\t([^\t]*)\t([^\t]*)\t')
        if ch then
          redis.call('ZREM', ARGV[2] .. 'ch:' .. ch .. '\0' .. chat, id)
          if msg ~= '' then cross[#cross + 1] = ARGV[3] .. ch .. '\0' .. chat .. '\0' .. msg end
        end
      end
      if f[4] then cross[#cross + 1] = f[4] end
      redis.call('DEL', rec, jkey(rec), fkey(rec), akey(rec))
      removed = removed + 1
    end
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[1], id)
    redis.call('ZREM', ARGV[2] .. 'unl', id)
    gone[#gone + 1] = id
  end
end
return {removed, cross, gone, #ids, kept}
`)
