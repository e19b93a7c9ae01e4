package redis

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// defaultEventLimit applies when Events is asked for no limit.
const defaultEventLimit = 1000

// Events returns up to limit events (resolutions and extensions) after
// sequence number after, oldest first, from the global log or the
// agent's log.
func (s *Store) Events(ctx context.Context, agent string, after int64, limit int) ([]broker.Event, error) {
	if limit <= 0 {
		limit = defaultEventLimit
	}
	key := s.k.evLog()
	if agent != "" {
		key = s.k.evAgent(agent)
	}
	zs, err := s.c.ZRangeByScoreWithScores(ctx, key, &goredis.ZRangeBy{
		Min: "(" + strconv.FormatInt(after, 10), Max: "+inf", Count: int64(limit),
	}).Result()
	if err != nil {
		return nil, wrap("events", err)
	}
	out := make([]broker.Event, 0, len(zs))
	for _, z := range zs {
		m, _ := z.Member.(string)
		_, body, ok := strings.Cut(m, " ")
		if !ok {
			continue
		}
		var e broker.Event
		if err := json.Unmarshal([]byte(body), &e); err != nil {
			return nil, wrap("events", err)
		}
		e.Seq = int64(z.Score)
		if e.Type == "" {
			e.Type = broker.EventResolved
		}
		out = append(out, e)
	}
	return out, nil
}
