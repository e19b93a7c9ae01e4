package web

import (
	"strconv"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// BenchmarkPublish posts a new question and ends it per operation at a
// steady rate, with the window of recently ended questions full: a
// question every 10 ms keeps 1,000 of them within endedTTL. pages is how
// many event streams are connected.
func BenchmarkPublish(b *testing.B) {
	for _, pages := range []int{0, 1} {
		b.Run("pages="+strconv.Itoa(pages), func(b *testing.B) {
			c, err := New(Config{}, nopHandler{}, Options{Lister: emptyLister{}, Loopback: true, Logger: quiet})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			var subs []chan []byte
			for range pages {
				ch, ok := c.hub.subscribe(c.loc, reader{})
				if !ok {
					b.Fatal("hub closed")
				}
				subs = append(subs, ch)
			}
			clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			c.now = func() time.Time { return clock }
			q := brokertest.NewQuestion("q", "agent", clock)
			done := q.Clone()
			done.Status, done.ResolvedAt = broker.StatusCancelled, clock
			step := 10 * time.Millisecond
			publish := func(i int) {
				clock = clock.Add(step)
				q.ID = "q" + strconv.Itoa(i)
				done.ID = q.ID
				c.publish(q)
				c.publish(done)
				for _, ch := range subs {
					for range 2 {
						if ev := <-ch; len(ev) == 0 {
							b.Fatal("empty event")
						}
					}
				}
			}
			warm := int(endedTTL / step)
			for i := range warm {
				publish(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				publish(warm + i)
			}
			b.StopTimer()
			if n := c.endedLen(); n > warm+1 {
				b.Fatalf("%d ended questions remembered, want at most %d", n, warm+1)
			}
		})
	}
}
