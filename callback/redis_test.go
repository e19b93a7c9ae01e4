package callback

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// Two bridge instances on one Redis: each delivery reaches the receiver
// through one of them, retried past the receiver's failures, signed, and
// accepted once.
func TestRedisInstancesShareTheOutbox(t *testing.T) {
	addr, _ := redistest.StartServer(t)
	open := func() broker.Store {
		st, err := redisstore.Open(context.Background(), redisstore.Config{Addrs: []string{addr}}, quiet())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	one, two := open(), open()
	b, err := broker.New(broker.Config{
		Store: one, Logger: quiet(),
		Routes: map[string]broker.Route{"default": {Targets: []broker.Target{{Channel: "test", Chat: "c1"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, one, outbox.Config{})
	b.Register(brokertest.NewChannel("test"))
	e := &env{st: one, b: b}

	rcv := newReceiver(t, func(_ http.ResponseWriter, n int) int {
		if n <= 2 {
			return http.StatusTooManyRequests
		}
		return http.StatusAccepted
	})
	var ids []string
	for range 10 {
		ids = append(ids, e.askAndAnswer(t, rcv.URL).ID)
	}
	cfg := testConfig(30 * time.Millisecond)
	run(t, New(one, cfg, quiet()))
	run(t, New(two, cfg, quiet()))
	for _, id := range ids {
		waitFor(t, "delivery of "+id, func() bool { return e.delivery(t, id).State == broker.DeliveryDelivered })
	}
	accepted := map[string]int{}
	for _, h := range rcv.snapshot() {
		if h.verified != nil {
			t.Errorf("request for %s failed verification: %v", h.question, h.verified)
		}
		if h.status == http.StatusAccepted {
			accepted[h.delivery]++
		}
	}
	for _, id := range ids {
		if d := e.delivery(t, id); accepted[d.ID] != 1 || d.Attempts != 3 {
			t.Errorf("delivery of %s: accepted %d times after %d attempts; want once after 3", id, accepted[d.ID], d.Attempts)
		}
	}
}
