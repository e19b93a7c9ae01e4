package redis

import (
	"strconv"

	goredis "github.com/redis/go-redis/v9"
)

// Timers. A question of layout 3 (lv, written by this version) has one
// entry in its shard's timer set tm, scored with the earlier of its next
// reminder and its deadline, so that Create writes one ZADD and Resolve
// one ZREM for both. The record keeps the deadline (field dl; a snooze's
// ex wins over it) and the reminders (rt, rs), and the scans that read the
// set (timersDueScript) tell a due deadline from a due reminder there.
// Records of older layouts keep their entries in the due and rem sets,
// which the scans still read and the scripts still maintain for them.
//
// An older version sharing the store does not read tm: questions asked
// through a newer one time out and remind once a newer one holds the
// sweeper's lease. A snooze by an older version indexes a layout-3
// question in due (and rem) as well, so Resolve drops those entries of a
// snoozed question too.

// timersLua defines tmkey(k), the timer set of the shard of k (another
// set of the shard, such as its due set), and nextTimer(rt, rs,
// deadline): the earlier of reminder rs+1 of the comma list rt and the
// deadline (µs, as strings; either may be missing), or nil. Times stay
// strings: Lua numbers lose digits when Redis formats them.
const timersLua = `
local function tmkey(k) return (string.gsub(k, '%a+$', 'tm')) end
local function nextTimer(rt, rs, deadline)
  local i, want, nxt = 0, (tonumber(rs) or 0) + 1, nil
  for t in string.gmatch(rt or '', '[^,]+') do
    i = i + 1
    if i == want then nxt = t break end
  end
  if deadline == '' then deadline = nil end
  if nxt and deadline then
    if tonumber(nxt) < tonumber(deadline) then return nxt end
    return deadline
  end
  return nxt or deadline
end
`

// timersDueScript returns the questions of one shard's timer set whose
// deadline (ARGV[2] "d") or next reminder ("r") is at or before now, as
// {id, time (µs), ...}, at most limit of them, reading at most
// 4*limit+1000 entries whose timer is due. Entries of questions no longer
// open (resolved by an older version, which does not drop them) are
// dropped. KEYS: tm. ARGV: 1 nowUs, 2 kind, 3 limit, 4 record key prefix.
var timersDueScript = newIdempotentScript(timersLua + `
local now, limit = tonumber(ARGV[1]), tonumber(ARGV[3])
local out, stale = {}, {}
local start, batch, maxScan = 0, math.max(limit, 100), limit * 4 + 1000
while #out < 2 * limit and start < maxScan do
  local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', start, batch)
  if #ids == 0 then break end
  for _, id in ipairs(ids) do
    local f = redis.call('HMGET', ARGV[4] .. id, 'st', 'ex', 'dl', 'rt', 'rs')
    local at = nil
    if f[1] ~= 'pending' then
      stale[#stale + 1] = id
    elseif ARGV[2] == 'd' then
      at = f[2] or f[3]
    else
      at = nextTimer(f[4], f[5], nil)
    end
    if at and tonumber(at) <= now then
      out[#out + 1] = id
      out[#out + 1] = at
      if #out >= 2 * limit then break end
    end
  end
  start = start + batch
end
for _, id in ipairs(stale) do redis.call('ZREM', KEYS[1], id) end
return out
`)

// timerEntries reads a timersDueScript reply as index entries.
func timerEntries(cmd *goredis.Cmd) []goredis.Z {
	arr, _ := cmd.Val().([]any)
	out := make([]goredis.Z, 0, len(arr)/2)
	for i := 0; i+1 < len(arr); i += 2 {
		id, _ := arr[i].(string)
		at, _ := arr[i+1].(string)
		us, err := strconv.ParseInt(at, 10, 64)
		if id == "" || err != nil {
			continue
		}
		out = append(out, goredis.Z{Score: float64(us), Member: id})
	}
	return out
}
