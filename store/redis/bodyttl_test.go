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

// TestBodyOutlivesItsRecord: a question's body gets its TTL at Create,
// long enough to outlast the record of a question resolved by its
// deadline, so Resolve sets none (one call fewer a cycle); a question
// resolved when that TTL would end first, one whose deadline moved, and a
// record written before the field bx existed get the record's TTL on
// their body at Resolve. A body whose record expired first goes at Purge.
// In every case the question reads whole after Resolve.
func TestBodyOutlivesItsRecord(t *testing.T) {
	const day = 24 * time.Hour
	retention := redisstore.DefaultRetention + time.Hour // and its grace
	for _, c := range []struct {
		name string
		// prepare runs between Create and Resolve.
		prepare func(t *testing.T, s *redisstore.Store, q *broker.Question, rec, body string)
		// keep: the body keeps its TTL from Create.
		keep bool
	}{
		{name: "resolved by its deadline", keep: true},
		{name: "resolved late", prepare: func(t *testing.T, s *redisstore.Store, q *broker.Question, rec, body string) {
			// As if every instance had been down until an hour
			// before the body's TTL ends.
			ctx := context.Background()
			soon := time.Now().Add(time.Hour)
			if err := s.Client().HSet(ctx, rec, "bx", strconv.FormatInt(soon.UnixMicro(), 10)).Err(); err != nil {
				t.Fatal(err)
			}
			if err := s.Client().PExpire(ctx, body, time.Hour).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "snoozed", prepare: func(t *testing.T, s *redisstore.Store, q *broker.Question, rec, body string) {
			ctx := context.Background()
			next := q.ExpiresAt.Add(30 * day)
			st := broker.PolicyState{Snoozes: []broker.Snooze{{By: broker.Responder{Channel: "slack", User: "U1"}, At: time.Now(), ExpiresAt: next}}}
			if _, err := s.Amend(ctx, q.ID, 0, broker.Amendment{State: st, ExpiresAt: next, Extended: true}); err != nil {
				t.Fatal(err)
			}
			if ttl := s.Client().PTTL(ctx, body).Val(); ttl != -1 {
				t.Fatalf("body's TTL after the snooze = %v, want none until Resolve", ttl)
			}
			if s.Client().HExists(ctx, rec, "bx").Val() {
				t.Fatal("record keeps bx after the snooze")
			}
		}},
		{name: "older record", prepare: func(t *testing.T, s *redisstore.Store, q *broker.Question, rec, body string) {
			ctx := context.Background()
			if err := s.Client().HDel(ctx, rec, "bx").Err(); err != nil {
				t.Fatal(err)
			}
			if err := s.Client().Persist(ctx, body).Err(); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			cfg := redistest.Shared(t)
			s := open(t, cfg)
			rc := s.Client()
			now := time.Now()
			q, _, err := s.Create(ctx, brokertest.NewQuestion(broker.NewID(), "a1", now), nil)
			if err != nil {
				t.Fatal(err)
			}
			rec, body := s.BodyKeyNames(q.ID)
			// At Create: until the deadline, the retention and its
			// grace, and the slack (the longest a question may pend).
			want := time.Until(q.ExpiresAt) + retention + 8*day
			if ttl := rc.PTTL(ctx, body).Val(); ttl < want-time.Minute || ttl > want+time.Second {
				t.Fatalf("body's TTL at Create = %v, want about %v", ttl, want)
			}
			bx, err := rc.HGet(ctx, rec, "bx").Int64()
			if got := time.UnixMicro(bx); err != nil || got.Sub(now.Add(want)).Abs() > time.Minute {
				t.Fatalf("record's bx = %v, %v; want about %v", got, err, now.Add(want))
			}
			if c.prepare != nil {
				c.prepare(t, s, q, rec, body)
			}
			before := rc.PTTL(ctx, body).Val()
			if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled}); err != nil {
				t.Fatal(err)
			}
			recTTL, bodyTTL := rc.PTTL(ctx, rec).Val(), rc.PTTL(ctx, body).Val()
			if recTTL < retention-time.Minute || recTTL > retention+time.Second {
				t.Fatalf("record's TTL after Resolve = %v, want about %v", recTTL, retention)
			}
			// The two PTTLs are read one after the other: a second apart
			// at most.
			if bodyTTL < recTTL-time.Second {
				t.Fatalf("body's TTL %v is shorter than its record's %v", bodyTTL, recTTL)
			}
			if c.keep && (bodyTTL > before || before-bodyTTL > time.Minute) {
				t.Fatalf("body's TTL went from %v to %v at Resolve, want it kept", before, bodyTTL)
			}
			if !c.keep && bodyTTL-recTTL > time.Minute {
				t.Fatalf("body's TTL after Resolve = %v, want the record's %v", bodyTTL, recTTL)
			}
			// A fresh store has no body cached: the read takes the
			// body from Redis.
			fresh := open(t, cfg)
			got, err := fresh.Get(ctx, q.ID)
			if err != nil || got.Status != broker.StatusCancelled || len(got.Prompts) != 1 || got.Prompts[0].Question != q.Prompts[0].Question {
				t.Fatalf("Get after Resolve = %+v, %v; want the whole cancelled question", got, err)
			}
			// The record expires before its body: Purge deletes the body.
			if err := rc.Del(ctx, rec).Err(); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Purge(ctx, time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			if n := rc.Exists(ctx, body).Val(); n != 0 {
				t.Fatal("the body of an expired record is still there after Purge")
			}
		})
	}
}
