package sqlite_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// BenchmarkCycleGrown is BenchmarkCycleParallel's cycle on a file that
// already holds resolved questions, as after minutes of a steady rate
// with the default retention: it tells whether a cycle costs more as the
// file grows. The questions are the soak's: 100 agents' sessions, each
// call with its own tool call id, copies at the web inbox and the text
// channel recorded with the question. writes/op counts the write system
// calls (WAL frames and checkpoints), the cost that grew with the file
// while copies were indexed by random question ids.
func BenchmarkCycleGrown(b *testing.B) {
	for _, held := range []int{0, 120_000} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			s := openTemp(b)
			ctx := context.Background()
			var seq atomic.Int64
			cycle := func(worker int) error {
				n := seq.Add(1)
				now := time.Now()
				q := hotQuestion(broker.NewID(), now)
				q.Agent = "local"
				q.SessionID = "run-agent-" + strconv.Itoa(worker%100)
				q.ToolCallID = "call-" + strconv.FormatInt(n, 10)
				if _, _, err := s.CreateCapped(ctx, q, defaultTargets, 1<<30); err != nil {
					if errorsIsIDTaken(err) {
						return nil
					}
					return err
				}
				if _, err := s.Get(ctx, q.ID); err != nil {
					return err
				}
				r := broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now,
					Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}}
				if _, err := s.Resolve(ctx, q.ID, r); err != nil {
					return err
				}
				_, err := s.Get(ctx, q.ID)
				return err
			}
			run := func(n int) {
				var wg sync.WaitGroup
				var left atomic.Int64
				left.Store(int64(n))
				for w := range 100 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for left.Add(-1) >= 0 {
							if err := cycle(w); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
			}
			run(held)
			b.ReportAllocs()
			b.ResetTimer()
			report := cycleMetrics(b, s)
			run(b.N)
			report()
		})
	}
}
