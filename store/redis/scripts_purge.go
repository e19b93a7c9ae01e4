package redis

// The script that removes resolved questions of a shard (purge.go).

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
