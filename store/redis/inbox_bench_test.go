package redis_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	redisstore "github.com/askbridge/askbridge/store/redis"
)

// BenchmarkInboxPage reads the pages of the web inbox (the newest 100
// open questions with the count of the rest, the 50 after the middle one,
// the 50 latest resolved) from a private Redis holding 1,000 and 50,000
// questions of which 100 are open, created over a week through the store:
// the cost of a page does not grow with the store.
func BenchmarkInboxPage(b *testing.B) {
	for _, stored := range []int{1_000, 50_000} {
		b.Run(fmt.Sprintf("stored=%d", stored), func(b *testing.B) {
			s, _ := benchStore(b)
			fillInbox(b, s, stored, 100)
			brokertest.BenchInboxPages(b, s)
		})
	}
}

// fillInbox stores n questions with an in-process copy in the web inbox,
// created over the last week from 32 goroutines, and resolves all but
// open of them (brokertest.FillInbox).
func fillInbox(b *testing.B, s *redisstore.Store, n, open int) {
	b.Helper()
	ctx := context.Background()
	brokertest.FillInbox(b, n, open, 1, 32, func(q *broker.Question, to broker.Target, resolvedAt time.Time) error {
		if _, _, err := s.Create(ctx, q, []broker.Target{to}); err != nil || resolvedAt.IsZero() {
			return err
		}
		_, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: resolvedAt})
		return err
	})
}
