package redis

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

const (
	// defaultListLimit applies when a Filter sets no limit.
	defaultListLimit = 1000
	// maxScan bounds how many index entries List reads per shard.
	maxScan = 20000
	// repairAfter is how long a resolution may wait for its event before
	// Due logs it (its Resolve died between its two round trips).
	repairAfter = 10 * time.Second
)

// List returns questions matching f, newest first. It reads the most
// selective index of each shard (chat, the agent's session, agent, or
// all) in one pipeline, filters in the script, and merges. An agent's
// session is read from its index and from the index older versions kept
// of the session id (keys.go's session), a question being in one of the
// two.
func (s *Store) List(ctx context.Context, f broker.Filter) ([]*broker.Question, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = defaultListLimit
	}
	b := s.batch()
	cmds := make([]*goredis.Cmd, 0, shards)
	for n := range shards {
		var idx, channel string
		switch {
		case f.Channel != "" && f.Chat != "":
			idx = s.k.chat(n, f.Channel, f.Chat)
		case f.Channel != "":
			// Rare (no chat given): scan and check the copies.
			idx, channel = s.k.all(n), f.Channel
		case f.SessionID != "" && f.Agent != "":
			idx = s.k.session(n, f.Agent, f.SessionID)
			cmds = append(cmds, b.script(ctx, listScript, []string{s.k.oldSess(n, f.SessionID)}, limit, f.Agent, f.SessionID, string(f.Status), s.k.recPrefix(n), maxScan, ""))
		case f.Agent != "":
			idx = s.k.agent(n, f.Agent)
		default:
			// A session id of any agent (rare: agents list their own)
			// is filtered from every question.
			idx = s.k.all(n)
		}
		cmds = append(cmds, b.script(ctx, listScript, []string{idx}, limit, f.Agent, f.SessionID, string(f.Status), s.k.recPrefix(n), maxScan, channel))
	}
	if err := b.exec(ctx); err != nil {
		return nil, wrap("list", err)
	}
	type item struct {
		q  *broker.Question
		cr int64
	}
	var items []item
	for _, cmd := range cmds {
		recs, _ := cmd.Val().([]any)
		for _, v := range recs {
			rec, err := fromWhole(v)
			if err != nil {
				return nil, wrap("list", err)
			}
			q, err := rec.question()
			if err != nil {
				return nil, wrap("list", err)
			}
			cr, _ := strconv.ParseInt(rec["cr"], 10, 64)
			items = append(items, item{q, cr})
		}
	}
	slices.SortFunc(items, func(a, b item) int {
		if c := cmp.Compare(b.cr, a.cr); c != 0 {
			return c
		}
		return cmp.Compare(b.q.ID, a.q.ID)
	})
	out := make([]*broker.Question, 0, min(len(items), limit))
	for i, it := range items {
		if len(out) == limit {
			break
		}
		if i > 0 && it.q.ID == items[i-1].q.ID {
			continue // in both indexes of a session
		}
		out = append(out, it.q)
	}
	return out, nil
}

// CountPending adds up the deadline and timer indexes of the shards,
// which hold the pending questions only (those of layouts 1 and 2 in due,
// those of layout 3 in tm: timers.go): pipelined ZCARDs.
func (s *Store) CountPending(ctx context.Context) (int, error) {
	pipe := s.c.Pipeline()
	cmds := make([]*goredis.IntCmd, 0, 2*shards)
	for n := range shards {
		cmds = append(cmds, pipe.ZCard(ctx, s.k.due(n)), pipe.ZCard(ctx, s.k.timers(n)))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, wrap("count pending", err)
	}
	total := 0
	for _, c := range cmds {
		total += int(c.Val())
	}
	return total, nil
}

// Due returns pending questions whose deadline is at or before now. It also
// logs the events of resolutions whose Resolve died before logging them,
// and of snoozes whose Amend did (extended.go).
func (s *Store) Due(ctx context.Context, now time.Time, limit int) ([]string, error) {
	s.repairExtended(ctx)
	return s.scanDue(ctx, "due", s.k.due, "d", now, limit, true)
}

// DueReminders returns pending questions whose next reminder is due.
func (s *Store) DueReminders(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.scanDue(ctx, "due reminders", s.k.rem, "r", now, limit, false)
}

// LapsedLeases returns pending questions whose lease ended.
func (s *Store) LapsedLeases(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.scanDue(ctx, "lapsed leases", s.k.lease, "", now, limit, false)
}

// scanDue reads the entries at or before now of each shard's set key, and
// with a kind ("d" deadlines, "r" reminders) those of that kind in the
// shard's timer set (timers.go), in one pipeline, and returns the limit
// earliest ids.
func (s *Store) scanDue(ctx context.Context, op string, key func(int) string, kind string, now time.Time, limit int, repair bool) ([]string, error) {
	if limit <= 0 {
		return nil, nil
	}
	b := s.batch()
	cmds := make([]*goredis.ZSliceCmd, shards)
	var timers []*goredis.Cmd
	var unl []*goredis.StringSliceCmd
	max := strconv.FormatInt(usec(now), 10)
	for n := range shards {
		cmds[n] = b.pipe.ZRangeByScoreWithScores(ctx, key(n), &goredis.ZRangeBy{Min: "-inf", Max: max, Count: int64(limit)})
		if kind != "" {
			timers = append(timers, b.script(ctx, timersDueScript, []string{s.k.timers(n)}, max, kind, limit, s.k.recPrefix(n)))
		}
		if repair {
			unl = append(unl, b.pipe.ZRangeByScore(ctx, s.k.unlogged(n), &goredis.ZRangeBy{
				Min: "-inf", Max: strconv.FormatInt(usec(now.Add(-repairAfter)), 10), Count: 100}))
		}
	}
	if err := b.exec(ctx); err != nil {
		return nil, wrap(op, err)
	}
	var all []goredis.Z
	for _, c := range cmds {
		all = append(all, c.Val()...)
	}
	for _, c := range timers {
		all = append(all, timerEntries(c)...)
	}
	slices.SortFunc(all, func(a, b goredis.Z) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Member.(string), b.Member.(string))
	})
	ids := make([]string, 0, min(limit, len(all)))
	seen := make(map[string]bool, min(limit, len(all)))
	for _, z := range all {
		if len(ids) == limit {
			break
		}
		// A question snoozed by an older version may be in both sets.
		if id := z.Member.(string); !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if repair {
		s.repairEvents(ctx, unl)
	}
	return ids, nil
}

// repairEvents logs the events of resolutions still marked unlogged (a
// no-op for those whose Resolve logged them) and drops the marks: one
// pipeline reads the records, one logs, one drops.
func (s *Store) repairEvents(ctx context.Context, unl []*goredis.StringSliceCmd) {
	type entry struct {
		shard int
		id    string
		rec   *goredis.SliceCmd
		log   *goredis.Cmd
	}
	var entries []*entry
	pipe := s.c.Pipeline()
	for n, c := range unl {
		for _, id := range c.Val() {
			e := &entry{shard: n, id: id}
			e.rec = pipe.HMGet(ctx, s.k.rec(id), "a", "se", "st", "ra")
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return
	}
	if _, err := pipe.Exec(ctx); err != nil {
		s.log.Warn("read unlogged resolutions", "err", err)
		return
	}
	b := s.batch()
	for _, e := range entries {
		v := e.rec.Val()
		st, _ := v[2].(string)
		if !broker.Status(st).Terminal() {
			continue // gone (expired or purged): no event to log
		}
		agent, _ := v[0].(string)
		sess, _ := v[1].(string)
		ra, _ := v[3].(string)
		keys, args := s.eventCall(pendingEvent{id: e.id, agent: agent, session: sess, status: broker.Status(st), at: nsTime(ra)})
		e.log = b.script(ctx, logEventScript, keys, args...)
	}
	if err := b.exec(ctx); err != nil {
		s.log.Warn("log resolution events", "err", err)
	}
	pipe = s.c.Pipeline()
	for _, e := range entries {
		if e.log == nil || e.log.Err() == nil {
			pipe.ZRem(ctx, s.k.unlogged(e.shard), e.id)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		s.log.Warn("drop logged resolutions", "err", err)
	}
}
