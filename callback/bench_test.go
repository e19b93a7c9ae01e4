package callback

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// resolved stores n answered questions with a callback to url, straight
// through the store, and returns their ids.
func resolved(tb testing.TB, st broker.Store, n int, url string) []string {
	tb.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	ids := make([]string, 0, n)
	for len(ids) < n {
		q := &broker.Question{
			ID: broker.NewID(), Agent: "agent-a", Prompts: []broker.Prompt{{Question: "Deploy now?"}},
			Route: "default", Timeout: time.Hour, CallbackURL: url,
			Status: broker.StatusPending, CreatedAt: now, ExpiresAt: now.Add(time.Hour),
		}
		if _, _, err := st.Create(ctx, q, nil); err != nil {
			continue // a random id that was taken: draw another
		}
		if _, err := st.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now}); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, q.ID)
	}
	return ids
}

// BenchmarkDeliver measures callback deliveries per second from a SQLite
// outbox to a receiver on loopback that acknowledges at once.
func BenchmarkDeliver(b *testing.B) {
	e := newEnv(b)
	rcv := newReceiver(b, func(http.ResponseWriter, int) int { return http.StatusNoContent })
	ids := resolved(b, e.st, b.N, rcv.URL)
	d := New(e.st, Config{DefaultSecret: testSecret, Poll: 10 * time.Millisecond, Concurrency: 16}, quiet())
	b.ResetTimer()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	for rcv.count() < b.N {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	cancel()
	<-done
	if got := e.delivery(b, ids[len(ids)-1]); got.Attempts != 1 {
		b.Fatalf("last delivery made %d attempts", got.Attempts)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}

// BenchmarkSweepWhileReceiverDown measures one outbox sweep while many
// deliveries wait for a receiver that is down: none of them is due, so
// the cost of a sweep must not grow with their number.
func BenchmarkSweepWhileReceiverDown(b *testing.B) {
	for _, waiting := range []int{0, 1000, 10000} {
		e := newEnv(b)
		ctx := context.Background()
		ids := resolved(b, e.st, waiting, "http://127.0.0.1:1/down")
		// Every delivery has failed once and waits for its next attempt.
		d := New(e.st, Config{DefaultSecret: testSecret, BaseBackoff: time.Hour, MaxBackoff: time.Hour, Concurrency: 64}, quiet())
		for started := -1; started != 0; {
			started = d.sweep(ctx)
			d.wg.Wait()
		}
		if waiting > 0 {
			if got := e.delivery(b, ids[0]); got.Attempts != 1 || got.State != broker.DeliveryPending {
				b.Fatalf("delivery after a failed attempt: %+v", got)
			}
		}
		b.Run(fmt.Sprintf("waiting=%d", waiting), func(b *testing.B) {
			for b.Loop() {
				if n := d.sweep(ctx); n != 0 {
					b.Fatalf("sweep claimed %d deliveries that are not due", n)
				}
			}
		})
	}
}
