package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// BenchmarkClaimDeliveries claims the one due delivery of the outbox each
// time: each claim holds it for a millisecond and the next one comes a
// millisecond later, when it is due again.
func BenchmarkClaimDeliveries(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	q := brokertest.NewQuestion(broker.NewID(), "bench", now)
	q.CallbackURL = "https://agent.example/cb"
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusTimedOut, Fallback: broker.FallbackNone, ResolvedAt: now}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		at := now.Add(time.Duration(i+1) * time.Millisecond)
		got, err := s.ClaimDeliveries(ctx, at, 8, time.Millisecond)
		if err != nil || len(got) != 1 {
			b.Fatalf("claim %d: %d deliveries, %v", i, len(got), err)
		}
	}
}

// BenchmarkClaimNothingDue is the claim of a poll that finds nothing due.
func BenchmarkClaimNothingDue(b *testing.B) {
	s := openTemp(b)
	ctx := context.Background()
	now := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if got, err := s.ClaimDeliveries(ctx, now, 8, time.Minute); err != nil || len(got) != 0 {
			b.Fatalf("claim: %d deliveries, %v", len(got), err)
		}
	}
}
