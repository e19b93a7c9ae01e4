package bench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/timeouts"
)

// countingChannel posts nothing and counts the edits of posted copies.
type countingChannel struct{ updates atomic.Int64 }

func (c *countingChannel) Name() string { return "chat" }

func (c *countingChannel) Post(_ context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	return broker.MessageRef{Channel: "chat", Chat: chat, MessageID: q.ID}, nil
}

func (c *countingChannel) Update(context.Context, *broker.Question, broker.MessageRef) error {
	c.updates.Add(1)
	return nil
}

// SweepResult is what one sweep of questions due at the same second did.
type SweepResult struct {
	Store     string        `json:"store"`
	Questions int           `json:"questions"`
	FillTime  time.Duration `json:"fill_ns"`
	Elapsed   time.Duration `json:"sweep_ns"`
	PerSecond float64       `json:"resolutions_per_s"`
	TimedOut  int           `json:"timed_out"`
	// Events counts timed_out events; Twice the questions with more than
	// one event; Pending those left pending; Updated the copies edited.
	Events  int `json:"events"`
	Twice   int `json:"resolved_twice"`
	Pending int `json:"left_pending"`
	Updated int `json:"copies_edited"`
}

// ScaleSweep fills env's store (a fresh SQLite file, or the Redis under a
// fresh key prefix) with n questions that all expire in the same second,
// runs the timeouts package's Sweeper with now at that second, and checks
// that every question timed out exactly once and every copy was edited.
func ScaleSweep(ctx context.Context, env *Env, n, workers int, progress func(int)) (*SweepResult, error) {
	st, err := env.OpenStore(ctx, fmt.Sprintf("sweep-%d", time.Now().UnixNano()))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	created := time.Now().UTC().Truncate(time.Second)
	expiry := 10 * time.Minute
	ch := &countingChannel{}
	b, err := broker.New(broker.Config{
		Store:          st,
		Routes:         map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "bench"}}}},
		ReminderPoints: []float64{},
		Logger:         quiet,
		Now:            func() time.Time { return created.Add(expiry) },
	})
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	outbox.Attach(b, st, outbox.Config{})
	b.Register(ch)
	res := &SweepResult{Store: "sqlite", Questions: n}
	if env.IsRedis() {
		res.Store = "redis"
	}
	t0 := time.Now()
	ids, err := Fill(ctx, st, n, workers, created, expiry, "chat", progress)
	if err != nil {
		return nil, err
	}
	res.FillTime = time.Since(t0)
	sw := timeouts.New(b, st, timeouts.Options{Logger: quiet})
	t0 = time.Now()
	stats, err := sw.Sweep(ctx, created.Add(expiry))
	b.Close() // editing the copies is part of the work
	res.Elapsed = time.Since(t0)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	res.TimedOut = stats.TimedOut
	res.PerSecond = float64(stats.TimedOut) / res.Elapsed.Seconds()
	res.Updated = int(ch.updates.Load())
	seen, err := countEvents(ctx, st, "")
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		switch seen[id] {
		case 0:
			res.Pending++
		case 1:
			res.Events++
		default:
			res.Events += seen[id]
			res.Twice++
		}
	}
	return res, nil
}

// countEvents counts the resolution events of each question in st's log.
func countEvents(ctx context.Context, st broker.EventLog, agent string) (map[string]int, error) {
	seen := map[string]int{}
	var after int64
	for {
		evs, err := st.Events(ctx, agent, after, 10000)
		if err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		for _, ev := range evs {
			if ev.Type == broker.EventResolved {
				seen[ev.QuestionID]++
			}
			after = ev.Seq
		}
		if len(evs) < 10000 {
			return seen, nil
		}
	}
}
