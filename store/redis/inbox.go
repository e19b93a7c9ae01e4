package redis

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// Each shard keeps each channel's inbox in two sorted sets of question
// ids (keys.go's inbox): "io:<channel>", the open questions scored by
// creation time, and "ih:<channel>", the resolved ones scored by
// resolution time, both in milliseconds, so that the order of a score's
// ties (the id, by the set's order) is the inbox's order. The scripts that
// change a question keep them in the step that changes it: the create
// scripts add an in-process copy's entry (createWrite), addMessageScript
// a posted copy's, resolveScript moves the entries from io to ih, and
// purgeScript removes them. A resolved question's record expires after
// the retention: resolveScript trims the older entries now and then, and
// a read drops the entries whose record is gone or in the other state
// (written by an older version of the bridge). buildInbox indexes the
// questions stored before the sets existed.

// inboxLua defines ikey(rec, part, ch), the inbox set part ("io" or "ih")
// of channel ch in the shard of record key rec, copyChannel(line), the
// channel of a copy's line (messageLine), and msOf(digits), the
// milliseconds of a time in µs.
const inboxLua = `
local function ikey(rec, part, ch) return string.match(rec, '^(.*)q:[^:]*$') .. part .. ':' .. ch end
local function copyChannel(line) return string.match(line or '', '^([^\t]*)\t') end
local function msOf(us) return string.sub(us, 1, -4) end
`

// inboxScanScript reads, in one shard, up to ARGV[3] entries of an inbox
// set after a cursor (score ARGV[1], "+inf" for none, then id ARGV[2]),
// highest first, and when ARGV[4] is "1" how many entries follow the
// cursor. KEYS: the set. Returns {count, id, score, id, score, ...}.
var inboxScanScript = newIdempotentScript(`
local limit, cur = tonumber(ARGV[3]), nil
if ARGV[1] ~= '+inf' then cur = tonumber(ARGV[1]) end
local out, off = {0}, 0
while (#out - 1) / 2 < limit do
  local b = redis.call('ZREVRANGEBYSCORE', KEYS[1], ARGV[1], '-inf', 'WITHSCORES', 'LIMIT', off, limit)
  if #b == 0 then break end
  off = off + #b / 2
  for i = 1, #b, 2 do
    if (#out - 1) / 2 < limit and (not cur or tonumber(b[i + 1]) < cur or b[i] < ARGV[2]) then
      out[#out + 1] = b[i]; out[#out + 1] = b[i + 1]
    end
  end
end
if ARGV[4] == '1' then
  if not cur then
    out[1] = redis.call('ZCARD', KEYS[1])
  else
    local n = redis.call('ZCOUNT', KEYS[1], '-inf', '(' .. ARGV[1])
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], ARGV[1])) do
      if id < ARGV[2] then n = n + 1 end
    end
    out[1] = n
  end
end
return out
`)

// inboxFetchScript returns the records of ids ARGV[3...] of one shard
// (whole), or 0 for each whose record is gone or not in the state of the
// set (ARGV[2]: "1" resolved, "0" open), which it drops from the set.
// KEYS: the set. ARGV: 1 record key prefix.
var inboxFetchScript = newIdempotentScript(prelude + `
local out, dead = {}, {}
for i = 3, #ARGV do
  local k = ARGV[1] .. ARGV[i]
  local st = redis.call('HGET', k, 'st')
  if st and ((st == 'pending') == (ARGV[2] == '0')) then
    out[#out + 1] = whole(k)
  else
    out[#out + 1] = 0
    dead[#dead + 1] = ARGV[i]
  end
end
if #dead > 0 then redis.call('ZREM', KEYS[1], unpack(dead)) end
return out
`)

// inboxRetries bounds how often a page is read again because entries it
// chose were stale (and are dropped by the read).
const inboxRetries = 3

// InboxPage reads a page of a channel's inbox: one pipeline reads the
// page's entries from each shard's set, another the records of the page;
// see broker.Inbox. Counting what follows costs a ZCOUNT per shard.
func (s *Store) InboxPage(ctx context.Context, q broker.InboxQuery) (broker.InboxPage, error) {
	if err := q.Check(); err != nil {
		return broker.InboxPage{}, fmt.Errorf("redis store: %w", err)
	}
	for try := 1; ; try++ {
		page, stale, err := s.inboxRead(ctx, q)
		if err != nil {
			return broker.InboxPage{}, wrap("inbox page", err)
		}
		if !stale || try == inboxRetries {
			return page, nil
		}
	}
}

type inboxEntry struct {
	shard int
	id    string
	ms    int64
}

// inboxRead reads a page once; stale says that some entries it chose
// had no record in the state of the set, so that the page may be short.
func (s *Store) inboxRead(ctx context.Context, q broker.InboxQuery) (broker.InboxPage, bool, error) {
	part, state := "io", "0"
	if q.Resolved {
		part, state = "ih", "1"
	}
	top, after := "+inf", ""
	if q.After != nil {
		top, after = strconv.FormatInt(q.After.At.UnixMilli(), 10), q.After.ID
	}
	count := "0"
	if q.Count > 0 {
		count = "1"
	}
	b := s.batch()
	scans := make([]*goredis.Cmd, shards)
	for n := range shards {
		scans[n] = b.script(ctx, inboxScanScript, []string{s.k.inbox(n, part, q.Channel)}, top, after, q.Limit, count)
	}
	if err := b.exec(ctx); err != nil {
		return broker.InboxPage{}, false, err
	}
	var entries []inboxEntry
	total := 0
	for n, c := range scans {
		v, _ := c.Val().([]any)
		if len(v) == 0 {
			continue
		}
		k, _ := v[0].(int64)
		total += int(k)
		for i := 1; i+1 < len(v); i += 2 {
			id, _ := v[i].(string)
			sc, _ := v[i+1].(string)
			ms, err := strconv.ParseInt(sc, 10, 64)
			if err != nil {
				return broker.InboxPage{}, false, fmt.Errorf("inbox entry %s: score %q: %w", id, sc, err)
			}
			entries = append(entries, inboxEntry{n, id, ms})
		}
	}
	slices.SortFunc(entries, func(a, b inboxEntry) int {
		if c := cmp.Compare(b.ms, a.ms); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	entries = entries[:min(len(entries), q.Limit)]
	var page broker.InboxPage
	if q.Count > 0 {
		page.More = min(max(total-len(entries), 0), q.Count)
	}
	if len(entries) == 0 {
		return page, false, nil
	}
	byShard := map[int][]any{}
	for _, e := range entries {
		if byShard[e.shard] == nil {
			byShard[e.shard] = []any{s.k.recPrefix(e.shard), state}
		}
		byShard[e.shard] = append(byShard[e.shard], e.id)
	}
	b = s.batch()
	fetch := map[int]*goredis.Cmd{}
	for n, args := range byShard {
		fetch[n] = b.script(ctx, inboxFetchScript, []string{s.k.inbox(n, part, q.Channel)}, args...)
	}
	if err := b.exec(ctx); err != nil {
		return broker.InboxPage{}, false, err
	}
	recs := map[string]any{}
	for n, c := range fetch {
		v, _ := c.Val().([]any)
		ids := byShard[n][2:]
		for i, x := range v {
			if i < len(ids) {
				recs[ids[i].(string)] = x
			}
		}
	}
	stale := false
	for _, e := range entries {
		v := recs[e.id]
		if _, gone := v.(int64); gone || v == nil {
			stale = true
			continue
		}
		rec, err := fromWhole(v)
		if err != nil {
			return broker.InboxPage{}, false, err
		}
		qu, err := rec.question()
		if err != nil {
			return broker.InboxPage{}, false, err
		}
		page.Questions = append(page.Questions, qu)
	}
	return page, stale, nil
}
