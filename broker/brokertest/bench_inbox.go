package brokertest

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// FillInbox makes the questions of a store's inbox benchmark
// (BenchmarkInboxPage in store/sqlite and store/redis), so that both
// stores measure their pages on the same inbox: n questions (NewQuestion,
// agent "a1") created over the week before now, of which one in n/open
// stays pending and the rest are resolved a minute after they were
// created. The pending ones and one in share of the resolved ones have
// their copy in the web inbox ("web"), the others in the terminal's
// ("text", chat "term").
//
// It hands each question to put, as it is when created, with the copy's
// target (to) and the time it is resolved (zero for one that stays pending),
// from workers goroutines at once, and fails tb with the first error put
// returns. How a question gets into the store (through Create and
// Resolve, or as the rows they would write) is put's choice.
func FillInbox(tb testing.TB, n, open, share, workers int, put func(q *broker.Question, to broker.Target, resolvedAt time.Time) error) {
	tb.Helper()
	now := time.Now().UTC().Truncate(time.Millisecond)
	step := 7 * 24 * time.Hour / time.Duration(n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				q := NewQuestion(broker.NewID()+strconv.Itoa(i), "a1", now.Add(-time.Duration(n-i)*step))
				to := broker.Target{Channel: "web"}
				var resolvedAt time.Time
				if i%(n/open) != 0 {
					if i%share != 0 {
						to = broker.Target{Channel: "text", Chat: "term"}
					}
					resolvedAt = q.CreatedAt.Add(time.Minute)
				}
				if err := put(q, to, resolvedAt); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
}

// BenchInboxPages measures the three pages an inbox reads, on a store
// FillInbox filled with 100 questions open: the first page of open
// questions with the count of the rest ("open"), the 100 after the middle
// one of that page ("next"), and the 50 latest resolved ("resolved").
func BenchInboxPages(b *testing.B, s broker.Inbox) {
	b.Helper()
	ctx := context.Background()
	first, err := s.InboxPage(ctx, broker.InboxQuery{Channel: "web", Limit: 100, Count: broker.MaxInboxCount})
	if err != nil || len(first.Questions) != 100 {
		b.Fatalf("first page: %d questions, %v", len(first.Questions), err)
	}
	mid := broker.OpenCursor(first.Questions[49])
	for _, c := range []struct {
		name string
		q    broker.InboxQuery
	}{
		{"open", broker.InboxQuery{Channel: "web", Limit: 100, Count: broker.MaxInboxCount}},
		{"next", broker.InboxQuery{Channel: "web", After: &mid, Limit: 100, Count: broker.MaxInboxCount}},
		{"resolved", broker.InboxQuery{Channel: "web", Resolved: true, Limit: 50}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.InboxPage(ctx, c.q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
