package redis

// The script that adds a posted copy to a question (messages.go).

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
