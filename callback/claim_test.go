package callback

import (
	"context"
	"database/sql"
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

// While another writer holds the database file longer than the store
// waits for it, the outcome of an attempt cannot be written at once. It
// is written once the file is free, within the claim, so the receiver
// gets the delivery once.
func TestOutcomeRecordedPastABusyStore(t *testing.T) {
	e := newEnv(t)
	locker, err := sql.Open("sqlite", "file:"+e.path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { locker.Close() })
	conn, err := locker.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	released := make(chan struct{})
	rcv := newReceiver(t, func(_ http.ResponseWriter, n int) int {
		if n == 1 {
			// Take the file before answering, so that the outcome
			// meets a busy store, and give it back after longer than
			// the store waits for a lock (its busy timeout, 5 s).
			if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
				t.Errorf("lock the database: %v", err)
			}
			time.AfterFunc(6*time.Second, func() {
				defer close(released)
				if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
					t.Errorf("unlock the database: %v", err)
				}
			})
		}
		return http.StatusOK
	})
	q := e.askAndAnswer(t, rcv.URL)
	run(t, New(e.st, testConfig(20*time.Millisecond), quiet()))
	waitFor(t, "the first request", func() bool { return rcv.count() >= 1 })
	<-released
	deadline := time.Now().Add(20 * time.Second)
	for e.delivery(t, q.ID).State == broker.DeliveryPending && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if d := e.delivery(t, q.ID); d.State != broker.DeliveryDelivered || d.Attempts != 1 || rcv.count() != 1 {
		t.Errorf("delivery %+v after %d requests; want delivered once", d, rcv.count())
	}
}
