package redis_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// TestCreateTakesOverDeadReservation runs testTakesOverDeadReservation on
// the shared Redis (the one-script Create); the Sentinel and Cluster
// conformance tests run it too.
func TestCreateTakesOverDeadReservation(t *testing.T) {
	testTakesOverDeadReservation(t, redistest.Shared(t))
}

// testTakesOverDeadReservation: a Create that died between reserving the
// idempotency key and storing the question (on Cluster, or a Create of
// the two-step kind sharing the server) leaves a reservation without a
// question; once it is stale (or unreadable), the next Create with that
// key stores its own question. A fresh one is waited for instead.
func testTakesOverDeadReservation(t *testing.T, cfg redisstore.Config) {
	cases := []struct {
		name    string
		value   func() string
		created bool
	}{
		{"Stale", func() string { return "dead01:" + strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10) }, true},
		{"Malformed", func() string { return "garbage" }, true},
		{"FreshIsWaitedFor", func() string { return "dead02:" + strconv.FormatInt(time.Now().UnixMilli(), 10) }, false},
	}
	s := open(t, cfg)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			call := "call-" + c.name
			q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
			q.SessionID, q.ToolCallID = "s1", call
			key := s.IdemKey(q.Agent, q.SessionID, q.ToolCallID)
			if err := s.Client().Set(ctx, key, c.value(), time.Hour).Err(); err != nil {
				t.Fatal(err)
			}
			got, created, err := s.Create(ctx, q, nil)
			if !c.created {
				if err == nil {
					t.Fatalf("Create over a fresh reservation = %+v, %v; want it to wait and give up", got, created)
				}
				return
			}
			if err != nil || !created || got.ID != q.ID {
				t.Fatalf("Create = %v, %v, %v; want %s created", got, created, err, q.ID)
			}
			again := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
			again.SessionID, again.ToolCallID = "s1", call
			got, created, err = s.Create(ctx, again, nil)
			if err != nil || created || got.ID != q.ID {
				t.Fatalf("second Create = %v, %v, %v; want %s back", got, created, err, q.ID)
			}
		})
	}
}
