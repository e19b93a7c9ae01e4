package redis

import (
	"container/heap"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// defaultEventLimit applies when Events is asked for no limit.
const defaultEventLimit = 1000

// Each agent's events are in its own log ({ev}:a:<agent>), numbered by one
// counter ({ev}:seq), so a resolution writes one log entry. Events of
// every agent (agent "") are the agents' logs merged by sequence number:
// a read for operators and tests, which lists the logs with SCAN. Older
// versions also kept a log of every agent's events ({ev}:log); Purge
// trims what is left of it.

// Events returns up to limit events (resolutions and extensions) after
// sequence number after, oldest first, from the agent's log, or from
// every agent's when agent is empty.
func (s *Store) Events(ctx context.Context, agent string, after int64, limit int) ([]broker.Event, error) {
	if limit <= 0 {
		limit = defaultEventLimit
	}
	if agent != "" {
		return s.eventsOf(ctx, s.k.evAgent(agent), after, limit)
	}
	logs, err := s.agentLogs(ctx)
	if err != nil {
		return nil, wrap("events", err)
	}
	var m eventMerge
	for _, key := range logs {
		evs, err := s.eventsOf(ctx, key, after, limit)
		if err != nil {
			return nil, err
		}
		if len(evs) > 0 {
			m = append(m, evs)
		}
	}
	heap.Init(&m)
	out := make([]broker.Event, 0, limit)
	for len(m) > 0 && len(out) < limit {
		out = append(out, m[0][0])
		if m[0] = m[0][1:]; len(m[0]) == 0 {
			heap.Pop(&m)
		} else {
			heap.Fix(&m, 0)
		}
	}
	return out, nil
}

// eventsOf reads up to limit events after seq after from one log.
func (s *Store) eventsOf(ctx context.Context, key string, after int64, limit int) ([]broker.Event, error) {
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

// eventMerge is a heap of runs of events, each in order, by the sequence
// number of each run's first event.
type eventMerge [][]broker.Event

func (m eventMerge) Len() int           { return len(m) }
func (m eventMerge) Less(i, j int) bool { return m[i][0].Seq < m[j][0].Seq }
func (m eventMerge) Swap(i, j int)      { m[i], m[j] = m[j], m[i] }
func (m *eventMerge) Push(x any)        { *m = append(*m, x.([]broker.Event)) }
func (m *eventMerge) Pop() any {
	old := *m
	x := old[len(old)-1]
	*m = old[:len(old)-1]
	return x
}

// agentLogs lists the agents' event logs, with SCAN on the server that
// holds slot {ev}.
func (s *Store) agentLogs(ctx context.Context) ([]string, error) {
	var c goredis.Cmdable = s.c
	if cc, ok := s.c.(*goredis.ClusterClient); ok {
		node, err := cc.MasterForKey(ctx, s.k.evSeq())
		if err != nil {
			return nil, err
		}
		c = node
	}
	var keys []string
	iter := c.Scan(ctx, 0, globQuote(s.k.evAgentPrefix())+"*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	return keys, iter.Err()
}

// globQuote escapes the characters that are special in a SCAN pattern.
func globQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// eventsBefore is the time (µs) before which events are dropped from the
// logs: the retention and the grace before now.
func (s *Store) eventsBefore(now time.Time) int64 {
	return usec(now.Add(-(s.cfg.Retention + grace)))
}

// trimBatch is how many events one trimLogScript looks at.
const trimBatch = 500

// trimLogs drops the events older than the retention from every agent's
// log, and from the log of every agent's events that older versions kept.
// A resolution trims its agent's log now and then; this pass reaches the
// logs of agents that no longer resolve anything.
func (s *Store) trimLogs(ctx context.Context, now time.Time) error {
	logs, err := s.agentLogs(ctx)
	if err != nil {
		return wrap("trim events", err)
	}
	before := s.eventsBefore(now)
	for _, key := range append(logs, s.k.evLog()) {
		for {
			n, err := trimLogScript.Run(ctx, s.run, []string{key, s.k.evIDs()}, before, trimBatch).Int()
			if err != nil {
				return wrap("trim events", err)
			}
			if n < trimBatch {
				break
			}
		}
	}
	return nil
}
