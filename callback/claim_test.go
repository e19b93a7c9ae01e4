package callback

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/store/sqlite"
)

// Two instances on one store share the outbox: every delivery is sent by
// one of them, once.
func TestTwoInstancesDeliverEachOnce(t *testing.T) {
	e := newEnv(t)
	second, err := sqlite.Open(context.Background(), e.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() })
	rcv := newReceiver(t, func(http.ResponseWriter, int) int { return http.StatusOK })
	var ids []string
	for range 20 {
		ids = append(ids, e.askAndAnswer(t, rcv.URL).ID)
	}
	cfg := testConfig(20 * time.Millisecond)
	cfg.Poll = 5 * time.Millisecond
	run(t, New(e.st, cfg, quiet()))
	run(t, New(second, cfg, quiet()))
	for _, id := range ids {
		waitFor(t, "delivery of "+id, func() bool { return e.delivery(t, id).State == broker.DeliveryDelivered })
	}
	per := map[string]int{}
	for _, h := range rcv.snapshot() {
		per[h.delivery]++
	}
	for _, id := range ids {
		if d := e.delivery(t, id); per[d.ID] != 1 || d.Attempts != 1 {
			t.Errorf("delivery %s of %s: sent %d times, %d attempts recorded; want once", d.ID, id, per[d.ID], d.Attempts)
		}
	}
}
