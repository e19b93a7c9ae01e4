package timeouts_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/testutil"
)

const benchQuestions = 100000

// countingChannel is a channel that only counts the updates of posted
// copies, so that the benchmark times the sweeper, the broker and the
// store rather than a test channel's bookkeeping.
type countingChannel struct{ updates atomic.Int64 }

func (c *countingChannel) Name() string { return "chat" }

func (c *countingChannel) Post(_ context.Context, q *broker.Question, chat string) (broker.MessageRef, error) {
	return broker.MessageRef{Channel: "chat", Chat: chat, MessageID: q.ID}, nil
}

func (c *countingChannel) Update(context.Context, *broker.Question, broker.MessageRef) error {
	c.updates.Add(1)
	return nil
}

// fill stores n pending questions that expire at start+expiry, with a
// posted copy each in the recording channel when copies is true, straight
// into the store (asking through the broker would only make the set-up
// slower).
func fill(b *testing.B, e *env, n int, expiry time.Duration, copies bool) {
	b.Helper()
	ctx := context.Background()
	for i := range n {
		q := &broker.Question{
			ID: fmt.Sprintf("b%07d", i), Agent: "a1", SessionID: "bench", ToolCallID: fmt.Sprintf("t%d", i),
			Prompts: []broker.Prompt{{Question: "Which database?", Options: options("Postgres", "SQLite"), Default: broker.StringList{"SQLite"}}},
			Route:   broker.DefaultRoute, Targets: []broker.Target{{Channel: "chat", Chat: chatID}},
			Timeout: expiry, Status: broker.StatusPending, CreatedAt: start, ExpiresAt: start.Add(expiry),
		}
		if _, _, err := e.store.Create(ctx, q, nil); err != nil {
			b.Fatalf("create %d: %v", i, err)
		}
		if !copies {
			continue
		}
		if err := e.store.AddMessage(ctx, q.ID, broker.MessageRef{Channel: "chat", Chat: chatID, MessageID: q.ID, PostedAt: start}); err != nil {
			b.Fatalf("add message %d: %v", i, err)
		}
	}
}

// BenchmarkSweep100k times one sweep that finds 100,000 questions due at
// the same moment, and checks that each was resolved exactly once.
func BenchmarkSweep100k(b *testing.B) {
	for range b.N {
		b.StopTimer()
		ch := &countingChannel{}
		e := openEnvWith(b, filepath.Join(b.TempDir(), "askbridge.db"), newClock(), broker.Config{ReminderPoints: []float64{}}, ch)
		fill(b, e, benchQuestions, 30*time.Minute, true)
		now := start.Add(30 * time.Minute)
		b.StartTimer()

		t0, cpu0 := time.Now(), testutil.CPUTime(b)
		st, err := e.sweeper.Sweep(context.Background(), now)
		e.broker.Close() // the copies' updates are part of the work
		elapsed, cpu := time.Since(t0), testutil.CPUTime(b)-cpu0

		b.StopTimer()
		if err != nil {
			b.Fatalf("sweep: %v", err)
		}
		b.ReportMetric(float64(st.TimedOut)/elapsed.Seconds(), "resolutions/s")
		if st.TimedOut > 0 && cpu > 0 {
			// CPU time does not depend on what else the machine runs.
			b.ReportMetric(float64(cpu.Microseconds())/float64(st.TimedOut), "cpu-µs/resolution")
		}
		checkAllTimedOutOnce(b, e, st.TimedOut)
		if n := ch.updates.Load(); n != benchQuestions {
			b.Fatalf("%d copies were updated, want %d", n, benchQuestions)
		}
		b.StartTimer()
	}
}

func checkAllTimedOutOnce(b *testing.B, e *env, timedOut int) {
	b.Helper()
	ctx := context.Background()
	if timedOut != benchQuestions {
		b.Fatalf("the sweep timed out %d of %d questions", timedOut, benchQuestions)
	}
	evs, err := e.store.Events(ctx, "", 0, 2*benchQuestions)
	if err != nil {
		b.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Status != broker.StatusTimedOut || seen[ev.QuestionID] {
			b.Fatalf("event %+v: want one timed_out event per question", ev)
		}
		seen[ev.QuestionID] = true
	}
	if len(seen) != benchQuestions {
		b.Fatalf("%d questions have a timed_out event, want %d", len(seen), benchQuestions)
	}
	left, err := e.store.List(ctx, broker.Filter{Status: broker.StatusPending, Limit: 10})
	if err != nil {
		b.Fatal(err)
	}
	if len(left) != 0 {
		b.Fatalf("%d+ questions are still pending", len(left))
	}
}

// BenchmarkSweepIdle times a sweep with nothing due, with no question
// pending and with 100,000 pending: the cost follows what is due, not
// what is pending, so the two should be about the same.
func BenchmarkSweepIdle(b *testing.B) {
	for _, pending := range []int{0, benchQuestions} {
		b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
			e := newEnv(b, broker.Config{ReminderPoints: []float64{}})
			fill(b, e, pending, time.Hour, false)
			now := start.Add(30 * time.Minute)
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				st, err := e.sweeper.Sweep(ctx, now)
				if err != nil || st.Total() != 0 {
					b.Fatalf("idle sweep: %+v, %v", st, err)
				}
			}
		})
	}
}
