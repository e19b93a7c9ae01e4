package redis_test

import (
	"context"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
	redisstore "github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// benchStore opens a store on a private Redis and returns it with an
// admin client for INFO.
func benchStore(b *testing.B) (*redisstore.Store, *goredis.Client) {
	b.Helper()
	addr, _ := redistest.StartServer(b)
	s, err := redisstore.Open(context.Background(), redisstore.Config{Addrs: []string{addr}}, quiet)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	admin := goredis.NewClient(&goredis.Options{Addr: addr})
	b.Cleanup(func() { admin.Close() })
	if err := s.LoadScripts(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s, admin
}

// answered is the resolution the benchmarks give.
func answered() broker.Resolution {
	return broker.Resolution{Status: broker.StatusAnswered,
		Answers:    map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}},
		AnsweredBy: &broker.Responder{Channel: "telegram", User: "42", Name: "ana"}}
}

// createN stores n pending four-option questions and returns their ids.
func createN(b *testing.B, s *redisstore.Store, n int) []string {
	b.Helper()
	ids := make([]string, n)
	for i := range ids {
		q := fourOptions(time.Now())
		if err := createFresh(s, q); err != nil {
			b.Fatal(err)
		}
		ids[i] = q.ID
	}
	return ids
}

// reportCalls adds the redis-calls/op metric: the INFO commandstats delta
// since before, per operation.
func reportCalls(b *testing.B, admin *goredis.Client, before int64) {
	b.ReportMetric(float64(commandCalls(b, admin)-before)/float64(b.N), "redis-calls/op")
}

// BenchmarkCreate stores a pending four-option question with a tool call
// id (the idempotent path agents use).
func BenchmarkCreate(b *testing.B) {
	s, admin := benchStore(b)
	qs := make([]*broker.Question, b.N)
	for i := range qs {
		qs[i] = fourOptions(time.Now())
	}
	before := commandCalls(b, admin)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := createFresh(s, qs[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCalls(b, admin, before)
}

// BenchmarkResolve answers a pending question (the compare-and-set and its
// event).
func BenchmarkResolve(b *testing.B) {
	s, admin := benchStore(b)
	ids := createN(b, s, b.N)
	before := commandCalls(b, admin)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Resolve(context.Background(), ids[i], answered()); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCalls(b, admin, before)
}

// BenchmarkGet reads an answered question, as the broker does after a
// wake-up.
func BenchmarkGet(b *testing.B) {
	s, admin := benchStore(b)
	id := createN(b, s, 1)[0]
	if _, err := s.Resolve(context.Background(), id, answered()); err != nil {
		b.Fatal(err)
	}
	before := commandCalls(b, admin)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := s.Get(context.Background(), id); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCalls(b, admin, before)
}
