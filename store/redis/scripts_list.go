package redis

// The script that lists a shard's questions (list.go).

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
