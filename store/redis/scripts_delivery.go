package redis

// The scripts of the callback outbox: claiming a delivery and recording
// an attempt (outbox.go).

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
