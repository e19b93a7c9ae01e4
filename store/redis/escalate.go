package redis

import (
	"context"
	"time"

	"github.com/askbridge/askbridge/broker"
	goredis "github.com/redis/go-redis/v9"
)

// esc is the index of the next escalation step of the pending questions
// of shard n: id -> due time (µs), kept by Amend.
func (k *keys) esc(n int) string { return k.tags[n] + "esc" }

// DueEscalations returns up to limit ids of pending questions whose next
// escalation step is due at or before now, earliest first. Ids of
// questions resolved or gone meanwhile are dropped from the index here,
// since a resolution does not touch it.
func (s *Store) DueEscalations(ctx context.Context, now time.Time, limit int) ([]string, error) {
	ids, err := s.scanDue(ctx, "due escalations", s.k.esc, "", now, limit, false)
	if err != nil || len(ids) == 0 {
		return ids, err
	}
	pipe := s.c.Pipeline()
	states := make([]*goredis.StringCmd, len(ids))
	for i, id := range ids {
		states[i] = pipe.HGet(ctx, s.k.rec(id), "st")
	}
	if _, err := pipe.Exec(ctx); err != nil && err != goredis.Nil {
		return nil, wrap("due escalations", err)
	}
	out := ids[:0]
	var stale []string
	for i, id := range ids {
		if st, err := states[i].Result(); err == nil && st == string(broker.StatusPending) {
			out = append(out, id)
			continue
		}
		stale = append(stale, id)
	}
	if len(stale) > 0 {
		pipe := s.c.Pipeline()
		for _, id := range stale {
			pipe.ZRem(ctx, s.k.esc(shardOf(id)), id)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, wrap("due escalations", err)
		}
	}
	return out, nil
}
