package broker_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// BenchmarkCycle is the full cycle on SQLite: ask → post to a channel →
// an answer command through the one parser → the waiter reads the result.
// Run with -cpu to vary concurrency; it reports cycles/s.
func BenchmarkCycle(b *testing.B) {
	e := newEnv(b, map[string]broker.Route{broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}})
	ctx := context.Background()
	var n atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			q, _, err := e.b.Ask(ctx, "agent", dbQuestion())
			if err != nil {
				b.Error(err)
				return
			}
			done := make(chan *broker.Question, 1)
			go func() {
				got, _ := e.b.Wait(ctx, "agent", q.ID)
				done <- got
			}()
			r := e.b.HandleInbound(ctx, in("c1", fmt.Sprint("u", n.Add(1)), "/answer "+q.ID+" 2"))
			if !r.OK {
				b.Errorf("answer refused: %s", r.Text)
				return
			}
			if got := <-done; got.Status != broker.StatusAnswered {
				b.Errorf("waiter saw %s", got.Status)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cycles/s")
}
