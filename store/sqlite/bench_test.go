package sqlite_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// benchIDs returns n distinct question ids.
func benchIDs(n int) []string {
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for len(out) < n {
		if id := broker.NewID(); !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

func BenchmarkCreate(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	ids := benchIDs(b.N)
	b.ResetTimer()
	for i := range b.N {
		if _, _, err := s.Create(ctx, brokertest.NewQuestion(ids[i], "bench", now), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkResolve measures the sweeper's path: one Resolve per due id, on
// questions with a callback URL so that every resolution also writes an
// event and a delivery.
func BenchmarkResolve(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	ids := benchIDs(b.N)
	for _, id := range ids {
		q := brokertest.NewQuestion(id, "bench", now)
		q.CallbackURL = benchCallback
		if _, _, err := s.Create(ctx, q, nil); err != nil {
			b.Fatal(err)
		}
	}
	r := broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: now}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Resolve(ctx, ids[i], r); err != nil {
			b.Fatal(err)
		}
	}
}

var benchCallback = ""

// BenchmarkResolveParallel resolves distinct questions from many
// goroutines at once, as the sweeper's workers and the API do; their
// writes share commits.
func BenchmarkResolveParallel(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	ids := benchIDs(b.N)
	for _, id := range ids {
		if _, _, err := s.Create(ctx, brokertest.NewQuestion(id, "bench", now), nil); err != nil {
			b.Fatal(err)
		}
	}
	r := broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: now}
	var next atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Resolve(ctx, ids[next.Add(1)-1], r); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkCreateResolveParallel(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := broker.NewID()
			_, _, err := s.Create(ctx, brokertest.NewQuestion(id, "bench", now), nil)
			if err != nil {
				if errorsIsIDTaken(err) {
					continue
				}
				b.Fatal(err)
			}
			r := broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now,
				Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}}
			if _, err := s.Resolve(ctx, id, r); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
