package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// QuestionStore is what the runs that drive a store directly use of it:
// the questions and their posted copies (Fill, StoreOnly).
type QuestionStore interface {
	broker.Questions
	broker.Messages
}

// Fill stores n pending questions directly through st from workers
// goroutines, each created at created and expiring after expiry, with a
// posted copy in channel (as the broker would record it). It returns the
// ids. A progress function, when not nil, is called every 10,000.
func Fill(ctx context.Context, st QuestionStore, n, workers int, created time.Time, expiry time.Duration, channel string, progress func(done int)) ([]string, error) {
	ids := make([]string, n)
	var next, done atomic.Int64
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	prefix := strconv.FormatInt(time.Now().UnixNano(), 36)
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				q := benchQuestion("fill-"+prefix+"-"+strconv.Itoa(i%1000), "t"+strconv.Itoa(i), created)
				q.Targets = []broker.Target{{Channel: channel, Chat: "bench"}}
				q.Timeout, q.ExpiresAt, q.Reminders = expiry, created.Add(expiry), nil
				err := createOne(ctx, st, q)
				if err == nil {
					err = st.AddMessage(ctx, q.ID, broker.MessageRef{Channel: channel, Chat: "bench", MessageID: q.ID, PostedAt: created})
				}
				if err != nil {
					mu.Lock()
					first = cmpErr(first, fmt.Errorf("fill %d: %w", i, err))
					mu.Unlock()
					return
				}
				ids[i] = q.ID
				if d := done.Add(1); progress != nil && d%10000 == 0 {
					progress(int(d))
				}
			}
		}()
	}
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return ids, first
}

func createOne(ctx context.Context, st QuestionStore, q *broker.Question) error {
	for range 8 {
		_, _, err := st.Create(ctx, q, nil)
		if !errors.Is(err, broker.ErrIDTaken) {
			return err
		}
		q.ID = broker.NewID()
	}
	return fmt.Errorf("no free id after 8 tries")
}
