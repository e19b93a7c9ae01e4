package redis

import (
	"context"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// purgeBatch is how many resolved questions one purge script handles.
const purgeBatch = 200

// Purge removes questions resolved before before, with their index
// entries, message lookups, idempotency key and events. A question whose
// callback is still pending stays until the delivery ends. Records also
// expire on their own after the retention; Purge is the early, thorough
// way. It also drops every event older than the retention and its grace
// (trimLogs).
func (s *Store) Purge(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for n := range shards {
		offset := 0
		for {
			v, err := purgeScript.Run(ctx, s.run, []string{s.k.all(n), s.k.done(n)},
				usec(before), s.k.tags[n], s.k.prefix+"l:", purgeBatch, offset).Slice()
			if err != nil {
				return total, wrap("purge", err)
			}
			removed, _ := v[0].(int64)
			cross := toStrings(v[1])
			gone := toStrings(v[2])
			read, _ := v[3].(int64)
			kept, _ := v[4].(int64)
			total += int(removed)
			offset += int(kept)
			if err := s.purgeCross(ctx, cross, gone); err != nil {
				return total, err
			}
			if read < purgeBatch {
				break
			}
		}
	}
	return total, s.trimLogs(ctx, time.Now())
}

// purgeCross deletes what purged questions left in other slots.
func (s *Store) purgeCross(ctx context.Context, cross, gone []string) error {
	if len(cross) == 0 && len(gone) == 0 {
		return nil
	}
	pipe := s.c.Pipeline()
	for _, k := range cross {
		pipe.Del(ctx, k)
	}
	if _, err := pipe.Exec(ctx); err != nil && err != goredis.Nil {
		return wrap("purge", err)
	}
	if len(gone) > 0 {
		args := make([]any, 0, len(gone)+1)
		args = append(args, s.k.evAgentPrefix())
		for _, id := range gone {
			args = append(args, id)
		}
		if err := purgeEventsScript.Run(ctx, s.run, []string{s.k.evIDs()}, args...).Err(); err != nil {
			return wrap("purge", err)
		}
	}
	return nil
}

func toStrings(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
