package redis

// The scripts that change a pending question short of resolving it: an
// answer's progress, a reminder's claim, the lease (resolve.go).

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
