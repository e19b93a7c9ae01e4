package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// NextScheduled returns the earliest deadline, reminder, lease end or
// escalation step in the schedule's indexes (the timer sets and, for
// questions of older layouts, the due and rem sets): the first entry of
// each shard's sorted sets, read in one pipeline.
func (s *Store) NextScheduled(ctx context.Context) (time.Time, bool, error) {
	at, ok, err := s.firstScore(ctx, "next scheduled", s.k.timers, s.k.due, s.k.rem, s.k.lease, s.k.esc)
	return time.UnixMicro(at).UTC(), ok, err
}

// NextDelivery returns when the earliest pending callback delivery falls
// due.
func (s *Store) NextDelivery(ctx context.Context) (time.Time, bool, error) {
	at, ok, err := s.firstScore(ctx, "next delivery", s.k.outbox)
	return time.UnixMicro(at).UTC(), ok, err
}

// NextPlatformWork returns when the earliest unfinished platform task
// falls due (the shards' platform outboxes are scored in milliseconds).
func (s *Store) NextPlatformWork(ctx context.Context) (time.Time, bool, error) {
	at, ok, err := s.firstScore(ctx, "next platform work", s.k.platformOutbox)
	return time.UnixMilli(at).UTC(), ok, err
}

// firstScore returns the lowest score in the sorted sets of every shard
// of each key; ok is false when they are all empty.
func (s *Store) firstScore(ctx context.Context, op string, keys ...func(int) string) (int64, bool, error) {
	pipe := s.c.Pipeline()
	cmds := make([]*goredis.ZSliceCmd, 0, shards*len(keys))
	for _, key := range keys {
		for n := range shards {
			cmds = append(cmds, pipe.ZRangeWithScores(ctx, key(n), 0, 0))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, false, wrap(op, err)
	}
	var first float64
	ok := false
	for _, c := range cmds {
		for _, z := range c.Val() {
			if !ok || z.Score < first {
				first, ok = z.Score, true
			}
		}
	}
	return int64(first), ok, nil
}
