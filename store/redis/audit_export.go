package redis

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// auditIndex is the export index of shard n's audit entries (audit.go):
// in the shard's slot, so that the scripts that append write it too.
func (k *keys) auditIndex(n int) string { return k.tags[n] + "ax" }

// auditScanMax bounds the index entries one call of auditPageScript
// looks at, so that a filter by agent that matches few entries does not
// hold the server for long: the call then says where it stopped.
const auditScanMax = 20000

// auditPageScript reads one shard's export index from a time on: up to
// ARGV[4] entries after the position ARGV[2] ("<id>\t<seq, 10 digits>",
// among those at the time ARGV[1] exactly; empty for none), of agent
// ARGV[3] (every agent's when empty), in the order of the index (time,
// then id and seq). It looks at auditScanMax entries at most. KEYS:
// index. Returns {score, key, ...} of the entries it picked and, last,
// the score and key of the last entry it looked at when it may not have
// looked at all (it picked ARGV[4], or stopped at auditScanMax), or {}
// when it reached the end.
var auditPageScript = newIdempotentScript(`
local out, limit, looked = {}, tonumber(ARGV[4]), 0
local off, batch = 0, 500
local lastScore, lastKey = nil, nil
while true do
  local r = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', off, batch)
  if #r == 0 then return {out, {}} end
  for i = 1, #r, 2 do
    local key, agent = string.match(r[i], '^([^\t]*\t%d+)\t(.*)$')
    local sc = r[i + 1]
    looked = looked + 1
    if key then
      lastScore, lastKey = sc, key
      local resumed = ARGV[2] ~= '' and tonumber(sc) == tonumber(ARGV[1]) and key <= ARGV[2]
      if not resumed and (ARGV[3] == '' or agent == ARGV[3]) then
        out[#out + 1] = sc
        out[#out + 1] = key
        if #out >= 2 * limit then return {out, {lastScore, lastKey}} end
      end
    end
    if looked >= ` + strconv.Itoa(auditScanMax) + ` then return {out, {lastScore or ARGV[1], lastKey or ARGV[2]}} end
  end
  off = off + batch
end
`)

// auditPos is a place in the export order: time (ms), id, seq.
type auditPos struct {
	at  int64
	id  string
	seq int64
}

func (p auditPos) key() string { return p.id + "\t" + fmt.Sprintf("%010d", p.seq) }

func comparePos(a, b auditPos) int {
	return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(a.id, b.id), cmp.Compare(a.seq, b.seq))
}

func parsePos(score, key string) (auditPos, bool) {
	at, err := strconv.ParseFloat(score, 64)
	id, seq, ok := strings.Cut(key, "\t")
	n, serr := strconv.ParseInt(seq, 10, 64)
	return auditPos{at: int64(at), id: id, seq: n}, err == nil && ok && serr == nil
}

// AuditSince returns the entries f selects, oldest first: the shards'
// export indexes are read from f's position on and merged, and the
// entries picked are read from their trails. A shard that may hold more
// than it gave bounds what is taken from the others (its last position),
// and the next round goes on from there.
func (s *Store) AuditSince(ctx context.Context, f broker.AuditFilter) ([]broker.AuditEntry, error) {
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("redis store: audit export: %w", err)
	}
	from := auditPos{at: f.Since.UnixMilli(), id: f.AfterQuestion, seq: f.AfterSeq}
	var picked []auditPos
	for len(picked) < f.Limit {
		want := f.Limit - len(picked)
		resume := ""
		if from.id != "" {
			resume = from.key()
		}
		b := s.batch()
		cmds := make([]*goredis.Cmd, shards)
		for n := range shards {
			cmds[n] = b.script(ctx, auditPageScript, []string{s.k.auditIndex(n)}, from.at, resume, f.Agent, want)
		}
		if err := b.exec(ctx); err != nil {
			return nil, wrap("audit export", err)
		}
		var found []auditPos
		var bound *auditPos
		for _, cmd := range cmds {
			got, stop, err := auditPage(cmd)
			if err != nil {
				return nil, fmt.Errorf("redis store: audit export: %w", err)
			}
			found = append(found, got...)
			if stop != nil && (bound == nil || comparePos(*stop, *bound) < 0) {
				bound = stop
			}
		}
		slices.SortFunc(found, comparePos)
		for _, p := range found {
			if len(picked) == f.Limit || (bound != nil && comparePos(p, *bound) > 0) {
				break
			}
			picked = append(picked, p)
		}
		if bound == nil || comparePos(*bound, from) <= 0 {
			break // every shard was read to its end
		}
		from = *bound
	}
	return s.auditEntries(ctx, picked)
}

// auditPage reads an answer of auditPageScript.
func auditPage(cmd *goredis.Cmd) ([]auditPos, *auditPos, error) {
	v, err := cmd.Result()
	if err != nil {
		return nil, nil, err
	}
	arr, ok := v.([]any)
	if !ok || len(arr) != 2 {
		return nil, nil, fmt.Errorf("unexpected index reply %T", v)
	}
	items, _ := arr[0].([]any)
	var out []auditPos
	for i := 0; i+1 < len(items); i += 2 {
		sc, _ := items[i].(string)
		key, _ := items[i+1].(string)
		if p, ok := parsePos(sc, key); ok {
			out = append(out, p)
		}
	}
	var stop *auditPos
	if last, _ := arr[1].([]any); len(last) == 2 {
		sc, _ := last[0].(string)
		key, _ := last[1].(string)
		if p, ok := parsePos(sc, key); ok {
			stop = &p
		}
	}
	return out, stop, nil
}

// auditEntries reads the entries at ps from their trails, in one
// pipeline. An entry whose trail expired, or whose place holds another
// entry (the trail was changed by hand), is left out.
func (s *Store) auditEntries(ctx context.Context, ps []auditPos) ([]broker.AuditEntry, error) {
	out := make([]broker.AuditEntry, 0, len(ps))
	if len(ps) == 0 {
		return out, nil
	}
	pipe := s.c.Pipeline()
	cmds := make([]*goredis.StringCmd, len(ps))
	for i, p := range ps {
		cmds[i] = pipe.LIndex(ctx, s.k.audit(p.id), p.seq-1)
	}
	if _, err := pipe.Exec(ctx); err != nil && err != goredis.Nil {
		return nil, wrap("audit export", err)
	}
	for i, cmd := range cmds {
		raw, err := cmd.Result()
		if err == goredis.Nil {
			continue
		}
		if err != nil {
			return nil, wrap("audit export", err)
		}
		var e broker.AuditEntry
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			return nil, fmt.Errorf("redis store: audit export: decode entry %d of %s: %w", ps[i].seq, ps[i].id, err)
		}
		if e.Question != ps[i].id || e.Seq != ps[i].seq {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// PurgeAudit drops the export index entries before before, in every
// shard; the trails themselves expire by their time to live (the audit
// retention after their newest entry). It returns how many index entries
// went.
func (s *Store) PurgeAudit(ctx context.Context, before time.Time) (int, error) {
	pipe := s.c.Pipeline()
	cmds := make([]*goredis.IntCmd, shards)
	for n := range shards {
		cmds[n] = pipe.ZRemRangeByScore(ctx, s.k.auditIndex(n), "-inf", "("+strconv.FormatInt(before.UnixMilli(), 10))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, wrap("purge audit", err)
	}
	total := 0
	for _, cmd := range cmds {
		total += int(cmd.Val())
	}
	return total, nil
}
