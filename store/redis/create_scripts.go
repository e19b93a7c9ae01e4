package redis

// The scripts that create a question (create.go).

// createWrite is the part of the create scripts that writes a new
// question: its record, its body and its index entries; and admit, which
// counts it among its agent's pending questions unless they are at the
// cap. The record is one HSET, each index one ZADD, and the agent,
// session and chat indexes get the index TTL with one PEXPIRE each (it
// only grows the key's life: every index key gets the same TTL) unless
// ARGV[20] says this process renewed that key less than a window ago
// (ttlmemo.go).
// The question gets one entry in the timer set, at the earlier of its
// next reminder and its deadline, and keeps its deadline in field dl
// (timers.go).
// KEYS: 1 rec, 2 body, 3 due (names the shard's platform outbox), 4 timers,
// 5 lease, 6 all, 7 agent, 8 session.
// ARGV: 1 id, 2 json, 3 agent, 4 session, 5 createdUs, 6 expiresUs|empty,
// 7 reminders csv|empty, 8 nextReminderUs|empty, 9 leaseUntilNs|empty,
// 10 leaseUntilUs, 11 idemKey|empty, 12 callbackURL|empty, 13 prompts,
// 14 record ttl ms, 15 trimBeforeUs, 16 remindersSent, 17 pending cap (0:
// none), 18 pending entry's end (µs), 19 nowUs, 20 "<index ttl ms>/<renew>"
// where renew holds one digit per renewable index (agent, session, then
// each chat index), 0 to skip its PEXPIRE; 21 the body's TTL (ms; the
// record's field bx says until when: bodySlack in create.go); from
// ARGV[extra] on, field/value pairs of initial progress and selections,
// the post tasks (fields "o\t...", platform_outbox.go), which also enter
// the shard's platform outbox, and the copies at in-process targets
// (fields "m1"... and "mn", their count, as AddMessage writes them),
// and the pair of field auditPair, whose value holds the sealed audit
// entries of the ask and of those copies (auditPush: audit.go), which
// open the question's audit trail.
// Each of those copies enters its channel's inbox set of open questions
// (inbox.go).
// The chat index of each such copy that names a chat is one of the last
// KEYS, in the order of the "m" fields; each gets the index TTL. A copy
// without a chat (the web inbox, the terminal) has no chat index: List
// never reads one (a filter by channel alone scans the shard's questions
// and checks their copies). ARGV[20] holds one renew digit per chat
// index, so the chat indexes are the last #renew - 2 KEYS.
//
// The create scripts test that the id is free with SET NX of the body,
// which gets its TTL in the same SET (the body and the record are written
// and deleted together, and the body outlives the record), so write does
// not set it; then open its audit trail (auditOpen, before write), which
// finds a trail kept under the id (a purged question's: the id is taken).
// A create refused after that deletes the trail it opened.
const createWrite = admitFunc + outboxLua + sometimesLua + timersLua + auditLua + inboxLua + `
local ittl, renew = string.match(ARGV[20], '^(%d+)/?(%d*)$')
local nchats = math.max(#renew - 2, 0)
local function createdAudit(extra)
  for i = extra, #ARGV, 2 do
    if ARGV[i] == '\tau' then return ARGV[i + 1] end
  end
  return ''
end
local function write(extra)
  local id = ARGV[1]
  local f = {'st', 'pending', 'a', ARGV[3], 'cr', ARGV[5], 'np', ARGV[13], 'lv', '3'}
  local function add(k, v) f[#f + 1] = k; f[#f + 1] = v end
  if ARGV[4] ~= '' then add('se', ARGV[4]) end
  if ARGV[6] ~= '' then add('dl', ARGV[6]) end
  if ARGV[7] ~= '' then add('rt', ARGV[7]); add('rs', ARGV[16]) end
  if ARGV[9] ~= '' then add('lu', ARGV[9]) end
  if ARGV[11] ~= '' then add('k', ARGV[11]) end
  if ARGV[12] ~= '' then add('cb', ARGV[12]) end
  local po, audit = {}, nil
  for i = extra, #ARGV, 2 do
    if ARGV[i] == '\tau' then audit = ARGV[i + 1] else add(ARGV[i], ARGV[i + 1]) end
    if string.match(ARGV[i], '^m%d+$') then
      redis.call('ZADD', ikey(KEYS[1], 'io', copyChannel(ARGV[i + 1])), msOf(ARGV[5]), id)
    end
    if string.sub(ARGV[i], 1, 2) == 'o\t' then
      po[#po + 1] = tsplit(ARGV[i + 1])[3]
      po[#po + 1] = id .. string.sub(ARGV[i], 2)
    end
  end
  if audit then add('an', auditCount(audit)) end
  redis.call('HSET', KEYS[1], unpack(f))
  if audit then auditPush(KEYS[1], id, ARGV[3], 0, audit, true, true) end
  if #po > 0 then redis.call('ZADD', pokey(KEYS[3]), unpack(po)) end
  local t = nextTimer(ARGV[8], '0', ARGV[6])
  if t then redis.call('ZADD', KEYS[4], t, id) end
  if ARGV[9] ~= '' then redis.call('ZADD', KEYS[5], ARGV[10], id) end
  local trim = sometimes(id)
  local function index(k, pos)
    redis.call('ZADD', k, ARGV[5], id)
    if trim then redis.call('ZREMRANGEBYSCORE', k, '-inf', '(' .. ARGV[15]) end
    if pos and string.sub(renew, pos, pos) ~= '0' then redis.call('PEXPIRE', k, ittl) end
  end
  index(KEYS[6], nil)
  index(KEYS[7], 1)
  if ARGV[4] ~= '' then index(KEYS[8], 2) end
  for j = 1, nchats do index(KEYS[#KEYS - nchats + j], 2 + j) end
end
`

// admitFunc defines admit(k, id, cap, endUs, nowUs): it adds id to the
// pending set k with score endUs (its question's deadline plus an hour)
// unless the set holds cap entries already (0: no cap). Entries whose end
// is before now are dropped before the cap refuses anything (and, without
// a cap, now and then as events are logged). It returns 1 when it added
// the id, 2 when the id was there already, 0 when the cap refuses it.
const admitFunc = `
local function admit(k, id, cap, endUs, nowUs)
  cap = tonumber(cap)
  if cap > 0 and redis.call('ZCARD', k) >= cap then
    redis.call('ZREMRANGEBYSCORE', k, '-inf', '(' .. nowUs)
    if redis.call('ZSCORE', k, id) then return 2 end
    if redis.call('ZCARD', k) >= cap then return 0 end
  end
  if redis.call('ZADD', k, 'NX', endUs, id) == 0 then return 2 end
  return 1
end
`

// createScript stores a new question and its index entries, all in the
// question's shard. KEYS and ARGV as createWrite, pairs from ARGV[22];
// with a KEYS[9] before the chat indexes, the agent's pending set (off
// Cluster), it admits the question there first. Returns 0 when the id is
// taken, -1 when the cap refuses it, 1 when stored.
var createScript = newScript(createWrite + `
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[21]) then return 0 end
if not auditOpen(KEYS[1], createdAudit(22)) then
  redis.call('DEL', KEYS[2])
  return 0
end
if #KEYS - nchats >= 9 and admit(KEYS[9], ARGV[1], ARGV[17], ARGV[18], ARGV[19]) == 0 then
  redis.call('DEL', KEYS[2], audkey(KEYS[1]))
  return -1
end
write(22)
return 1
`)

// createIdemScript reserves an idempotency key and stores the question in
// one step, for servers where every key lives on one node (standalone,
// Sentinel): the key and the pending set are in other slots than the
// record. KEYS: as createWrite, then 9 idem, 10 pending set, then the
// chat indexes. ARGV: as
// createWrite, then 22 nowMs, 23 "1" to take the key over when it still
// names ARGV[24]; pairs from ARGV[25]. Returns {'ok'}, {'taken'} (the id
// is in use; the key is left as it was), {'full'} (the cap refuses it) or
// {'have', id, reservedMs} (the key names another question). Without a
// takeover the key is reserved first (SET NX GET: one call that reads and
// reserves) and released again when the question is not stored.
var createIdemScript = newScript(createWrite + `
local mine = ARGV[1] .. ':' .. ARGV[22]
local function have(v)
  local old, t = string.match(v, '^([^:]*):(%d+)$')
  return {'have', old or '', t or '0'}
end
local reserved = false
if ARGV[23] == '1' then
  local v = redis.call('GET', KEYS[9])
  if v and (string.match(v, '^([^:]*):%d+$') or '') ~= ARGV[24] then return have(v) end
else
  local v = redis.call('SET', KEYS[9], mine, 'NX', 'GET', 'PX', ARGV[14])
  if v then return have(v) end
  reserved = true
end
if not redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[21]) then
  if reserved then redis.call('DEL', KEYS[9]) end
  return {'taken'}
end
if not auditOpen(KEYS[1], createdAudit(25)) then
  redis.call('DEL', KEYS[2])
  if reserved then redis.call('DEL', KEYS[9]) end
  return {'taken'}
end
if admit(KEYS[10], ARGV[1], ARGV[17], ARGV[18], ARGV[19]) == 0 then
  redis.call('DEL', KEYS[2], audkey(KEYS[1]))
  if reserved then redis.call('DEL', KEYS[9]) end
  return {'full'}
end
if not reserved then redis.call('SET', KEYS[9], mine, 'PX', ARGV[14]) end
write(25)
return {'ok'}
`)

// admitScript counts a question among its agent's pending ones on
// Cluster, where the set is in another slot than the record: Create runs
// it before createScript and undoes it when the id is taken. KEYS:
// pending set. ARGV: 1 id, 2 cap, 3 endUs, 4 nowUs. Returns as admit.
var admitScript = newScript(admitFunc + `
return admit(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
`)
