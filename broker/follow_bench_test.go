package broker_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkResolveWithOtherStreams is one ask–answer cycle of one agent
// while other agents hold open event streams (each a Follow with a
// goroutine waiting on it, as GET /v1/events does). The cost of a
// resolution must not grow with them: other-wakes/op counts the other
// agents' streams that a resolution woke, and stays 0.
func BenchmarkResolveWithOtherStreams(b *testing.B) {
	for _, streams := range []int{0, 1000, 10000} {
		b.Run("streams="+strconv.Itoa(streams), func(b *testing.B) {
			e := newEnv(b, nil)
			ctx, cancel := context.WithCancel(context.Background())
			var woken atomic.Int64
			var wg sync.WaitGroup
			for i := range streams {
				wake, stop := e.b.Follow("other-" + strconv.Itoa(i))
				wg.Go(func() {
					defer stop()
					for {
						select {
						case <-ctx.Done():
							return
						case <-wake:
							woken.Add(1)
						}
					}
				})
			}
			defer func() { cancel(); wg.Wait() }()
			mine, stop := e.b.Follow("agent")
			defer stop()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				q, _, err := e.b.Ask(ctx, "agent", dbQuestion())
				if err != nil {
					b.Fatal(err)
				}
				if r := e.b.HandleInbound(ctx, in("c1", fmt.Sprint("u", i), "/answer "+q.ID+" 2")); !r.OK {
					b.Fatalf("answer refused: %s", r.Text)
				}
				<-mine
			}
			b.StopTimer()
			b.ReportMetric(float64(woken.Load())/float64(b.N), "other-wakes/op")
		})
	}
}
