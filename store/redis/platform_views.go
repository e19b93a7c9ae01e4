package redis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// What the outbox shows: a question's tasks (its copies), and the backlog
// per channel for the metrics.

// PlatformWork lists the tasks of a question (none for an unknown one).
func (s *Store) PlatformWork(ctx context.Context, id string) ([]broker.PlatformTask, error) {
	if !validID(id) {
		return nil, nil
	}
	m, err := s.c.HGetAll(ctx, s.k.rec(id)).Result()
	if err != nil {
		return nil, wrap("platform work", err)
	}
	var out []broker.PlatformTask
	for f, v := range m {
		if !strings.HasPrefix(f, "o\t") {
			continue
		}
		t, err := parseTask(id, f, v)
		if err != nil {
			return nil, fmt.Errorf("redis store: platform work: %w", err)
		}
		out = append(out, t)
	}
	rank := map[broker.TaskKind]int{broker.TaskPost: 0, broker.TaskEdit: 1}
	slices.SortFunc(out, func(a, b broker.PlatformTask) int {
		ra, ok := rank[a.Kind]
		if !ok {
			ra = 2
		}
		rb, ok := rank[b.Kind]
		if !ok {
			rb = 2
		}
		return cmp.Or(cmp.Compare(ra, rb), strings.Compare(string(a.Kind), string(b.Kind)),
			strings.Compare(a.Target.Channel, b.Target.Channel), strings.Compare(a.Target.Chat, b.Target.Chat))
	})
	return out, nil
}

// backlogScan bounds the tasks of one shard PlatformBacklog reads.
const backlogScan = 2000

// PlatformBacklog counts the unfinished tasks per channel; the age is read
// from up to backlogScan tasks of each shard, the earliest due first.
func (s *Store) PlatformBacklog(ctx context.Context) ([]broker.Backlog, error) {
	pipe := s.c.Pipeline()
	cmds := make([]*goredis.StringSliceCmd, shards)
	for n := range shards {
		cmds[n] = pipe.ZRange(ctx, s.k.platformOutbox(n), 0, backlogScan-1)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, wrap("platform backlog", err)
	}
	var members []string
	for _, c := range cmds {
		members = append(members, c.Val()...)
	}
	pipe = s.c.Pipeline()
	vals := make([]*goredis.StringCmd, len(members))
	for i, m := range members {
		id, rest, _ := strings.Cut(m, "\t")
		vals[i] = pipe.HGet(ctx, s.k.rec(id), "o\t"+rest)
	}
	if len(members) > 0 {
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
			return nil, wrap("platform backlog", err)
		}
	}
	by := map[string]*broker.Backlog{}
	for i, m := range members {
		id, rest, _ := strings.Cut(m, "\t")
		t, err := parseTask(id, "o\t"+rest, vals[i].Val())
		if err != nil || !(t.State == broker.TaskQueued || t.State == broker.TaskRetrying) {
			continue
		}
		b := by[t.Target.Channel]
		if b == nil {
			b = &broker.Backlog{Channel: t.Target.Channel, Oldest: t.CreatedAt}
			by[t.Target.Channel] = b
		}
		b.Depth++
		if t.CreatedAt.Before(b.Oldest) {
			b.Oldest = t.CreatedAt
		}
	}
	var out []broker.Backlog
	for _, b := range by {
		out = append(out, *b)
	}
	slices.SortFunc(out, func(a, b broker.Backlog) int { return strings.Compare(a.Channel, b.Channel) })
	return out, nil
}
