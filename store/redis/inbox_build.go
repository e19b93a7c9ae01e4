package redis

import (
	"context"
	"fmt"
)

// inboxBuildBatch is how many questions one run of inboxBuildScript
// indexes.
const inboxBuildBatch = 1000

// inboxBuildScript indexes, in one shard, the questions of its index of
// every question (all) from reverse rank ARGV[3] on, ARGV[4] of them: an
// open question under its creation time in the io set of each channel it
// has a copy on, a resolved one under its resolution time in the ih set.
// Ranks count from the newest, so that the questions created meanwhile
// (which their create script indexes) and the oldest entries trimmed
// meanwhile move no entry the walk has not read yet past it. One batch is
// one step: a question resolved by another instance is read before or
// after its resolution, never between. KEYS: all. ARGV: 1 record key
// prefix, 2 shard key prefix. Returns how many entries it read.
var inboxBuildScript = newIdempotentScript(inboxLua + `
local ids = redis.call('ZREVRANGE', KEYS[1], tonumber(ARGV[3]), tonumber(ARGV[3]) + tonumber(ARGV[4]) - 1)
for _, id in ipairs(ids) do
  local k = ARGV[1] .. id
  local f = redis.call('HMGET', k, 'st', 'cr', 'mn', 'ra')
  if f[1] and f[2] then
    for i = 1, tonumber(f[3] or '0') do
      local ch = copyChannel(redis.call('HGET', k, 'm' .. i))
      if ch then
        if f[1] == 'pending' then
          redis.call('ZADD', ARGV[2] .. 'io:' .. ch, msOf(f[2]), id)
        elseif f[4] then
          redis.call('ZADD', ARGV[2] .. 'ih:' .. ch, string.sub(f[4], 1, -7), id)
        end
      end
    end
  end
end
return #ids
`)

// buildInbox indexes the questions stored before the inbox sets existed
// (inbox.go), once per shard: a shard whose marker key (<tag>ixv) is set
// is done. Open runs it, so that the first page any instance reads is
// whole: 1 s for 50,000 questions on a loaded two-core machine. Instances
// that open the store at once each walk it, which changes nothing twice.
// Questions created meanwhile by an instance of an older version, which
// keeps no inbox sets, are left out until their next change.
func (s *Store) buildInbox(ctx context.Context) error {
	for n := range shards {
		marker := s.k.tags[n] + "ixv"
		done, err := s.c.Exists(ctx, marker).Result()
		if err != nil {
			return wrap("index the inbox", err)
		}
		if done == 1 {
			continue
		}
		read := 0
		for off := 0; ; off += inboxBuildBatch {
			v, err := inboxBuildScript.Run(ctx, s.run, []string{s.k.all(n)}, s.k.recPrefix(n), s.k.tags[n], off, inboxBuildBatch).Int()
			if err != nil {
				return wrap(fmt.Sprintf("index the inbox of shard %d", n), err)
			}
			read += v
			if v < inboxBuildBatch {
				break
			}
		}
		if err := s.c.Set(ctx, marker, "1", 0).Err(); err != nil {
			return wrap("index the inbox", err)
		}
		if read > 0 {
			s.log.Info("indexed the inbox of questions stored before it", "shard", n, "questions", read)
		}
	}
	return nil
}
