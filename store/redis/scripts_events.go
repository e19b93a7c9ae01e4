package redis

// The event log's Lua and scripts: logging a resolution, dropping purged
// questions' events, trimming by age (events.go, purge.go).

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
