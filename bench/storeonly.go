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

// StoreOnlyResult is the store-only bound: the store operations of one
// cycle (Create, AddMessage, Resolve, Get) driven directly through
// the store (QuestionStore), without HTTP and broker.
type StoreOnlyResult struct {
	Cycles    int           `json:"cycles"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	PerSecond float64       `json:"cycles_per_s"`
	Cycle     Summary       `json:"cycle"`
}

// benchQuestion is the question of one store-only cycle: the same 4-option
// prompt the load run asks, posted to the text channel.
func benchQuestion(session, call string, now time.Time) *broker.Question {
	opts := []broker.Option{
		{Label: "Postgres", Description: "relational, needs a server"},
		{Label: "SQLite", Description: "embedded, one file"},
		{Label: "MySQL", Description: "relational, needs a server"},
		{Label: "Redis", Description: "in memory, persistence optional"},
	}
	return &broker.Question{
		ID: broker.NewID(), Agent: "agent", SessionID: session, ToolCallID: call,
		Prompts: []broker.Prompt{{Question: "Which database should the service use?", Header: "Database", Options: opts}},
		Route:   broker.DefaultRoute, Targets: []broker.Target{{Channel: "cli"}},
		Timeout: 30 * time.Minute, Status: broker.StatusPending,
		Fingerprint: "0123456789abcdef0123456789abcdef",
		Reminders:   []time.Time{now.Add(15 * time.Minute), now.Add(27 * time.Minute)},
		CreatedAt:   now, ExpiresAt: now.Add(30 * time.Minute),
	}
}

// StoreOnly runs cycles of Create, AddMessage, Resolve and Get on st from
// workers goroutines, until cycles have started or d has passed.
func StoreOnly(ctx context.Context, st QuestionStore, workers, cycles int, d time.Duration) (*StoreOnlyResult, error) {
	if workers < 1 || cycles < 1 || d <= 0 {
		return nil, fmt.Errorf("store-only: workers, cycles and duration must be positive")
	}
	var started atomic.Int64
	var lat Latencies
	var mu sync.Mutex
	var firstErr error
	done := 0
	prefix := "so-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	start := time.Now()
	stop := start.Add(d)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			session := prefix + "-" + strconv.Itoa(w)
			for time.Now().Before(stop) && ctx.Err() == nil {
				j := started.Add(1)
				if j > int64(cycles) {
					return
				}
				t0 := time.Now()
				err := storeCycle(ctx, st, session, "c"+strconv.FormatInt(j, 10))
				mu.Lock()
				if err != nil {
					firstErr = cmpErr(firstErr, err)
				} else {
					done++
				}
				mu.Unlock()
				if err != nil {
					return
				}
				lat.Add(time.Since(t0))
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	res := &StoreOnlyResult{Cycles: done, Elapsed: el, PerSecond: float64(done) / el.Seconds(), Cycle: lat.Summary()}
	return res, firstErr
}

func cmpErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}

// storeCycle is what one ask–answer cycle asks of the store.
func storeCycle(ctx context.Context, st QuestionStore, session, call string) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	q := benchQuestion(session, call, now)
	var err error
	for range 8 {
		_, _, err = st.Create(ctx, q, nil)
		if !errors.Is(err, broker.ErrIDTaken) {
			break
		}
		q.ID = broker.NewID()
	}
	if err != nil {
		return fmt.Errorf("store-only: create: %w", err)
	}
	if err := st.AddMessage(ctx, q.ID, broker.MessageRef{Channel: "cli", MessageID: q.ID, PostedAt: now}); err != nil {
		return fmt.Errorf("store-only: add message: %w", err)
	}
	ans := map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{chosenLabel}}}
	if _, err := st.Resolve(ctx, q.ID, broker.Resolution{
		Status: broker.StatusAnswered, Answers: ans, ResolvedAt: now,
		AnsweredBy: &broker.Responder{Channel: "cli", User: "responder", Name: "responder"},
	}); err != nil {
		return fmt.Errorf("store-only: resolve: %w", err)
	}
	got, err := st.Get(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("store-only: get: %w", err)
	}
	if got.Status != broker.StatusAnswered {
		return fmt.Errorf("store-only: %s is %s after resolve", q.ID, got.Status)
	}
	return nil
}
