package bench

import (
	"context"
	"fmt"
	"os"
	"time"
)

// PendingResult is the Redis memory taken by pending questions.
type PendingResult struct {
	Questions   int           `json:"questions"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	PerSecond   float64       `json:"stored_per_s"`
	MemoryDelta int64         `json:"used_memory_delta_bytes"`
	PerQuestion float64       `json:"bytes_per_question"`
	// PerQuestion1M extrapolates to 1,000,000 questions.
	Extrapolated1M int64 `json:"extrapolated_bytes_1m"`
}

// ScalePending stores n pending 4-option questions (each with a posted
// copy, a session and a tool call id, the way the broker stores an ask)
// in a private redis-server and reports the growth of used_memory per
// question.
func ScalePending(ctx context.Context, n, workers int, progress func(int)) (*PendingResult, error) {
	dir, err := os.MkdirTemp("", "askbench-pending-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer removeAll(dir)
	rs, err := StartRedis(ctx, dir, false)
	if err != nil {
		return nil, err
	}
	defer rs.Kill()
	env := &Env{RedisURL: rs.URL(), dir: dir}
	st, err := env.OpenStore(ctx, "")
	if err != nil {
		return nil, err
	}
	defer st.Close()
	c := rs.Client()
	defer c.Close()
	before, err := UsedMemory(ctx, c)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if _, err := Fill(ctx, st, n, workers, time.Now().UTC(), 24*time.Hour, "cli", progress); err != nil {
		return nil, err
	}
	el := time.Since(t0)
	after, err := UsedMemory(ctx, c)
	if err != nil {
		return nil, err
	}
	d := after - before
	per := float64(d) / float64(n)
	return &PendingResult{Questions: n, Elapsed: el, PerSecond: float64(n) / el.Seconds(),
		MemoryDelta: d, PerQuestion: per, Extrapolated1M: int64(per * 1e6)}, nil
}
