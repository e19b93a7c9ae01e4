package timeouts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Defaults of Options.
const (
	DefaultBatch   = 500
	DefaultEvery   = time.Second
	MinEvery       = time.Second
	DefaultWorkers = 4
	MaxBatch       = 100000
)

// AbandonedReason is the reason given when a question's lease lapses.
const AbandonedReason = "the asking agent is gone"

// Options tune a Sweeper. The zero value is ready to use.
type Options struct {
	// Batch is how many due ids one store query returns (DefaultBatch when
	// zero). Sweep keeps querying until a query returns fewer.
	Batch int
	// Every is the least time between two sweeps of Run, and how long it
	// waits after the store failed to tell when the next entry falls due
	// (DefaultEvery when zero; never less than MinEvery).
	Every time.Duration
	// MaxIdle is the longest Run sleeps when nothing falls due sooner
	// (broker.MaxIdle when zero; never less than Every): the bound on how
	// late it sees work that another instance wrote to a shared store.
	MaxIdle time.Duration
	// Workers is how many due questions are resolved at once
	// (DefaultWorkers when zero), so reads overlap the store's writes.
	Workers int
	// Retention is how long resolved questions are kept before Run's
	// hourly purge removes them (DefaultRetention when zero, at least
	// broker.MinRetention).
	Retention time.Duration
	// Logger receives the sweeper's and the scheduler's messages.
	Logger *slog.Logger
}

// Stats counts what one Sweep did.
type Stats struct {
	// TimedOut questions were resolved as timed_out by this sweep.
	TimedOut int
	// Reminded questions were sent a reminder.
	Reminded int
	// Abandoned questions were cancelled because their lease lapsed.
	Abandoned int
	// Escalated questions took an escalation step.
	Escalated int
	// LostRaces counts due questions that something else (an answer, a
	// cancel, another sweeper) resolved first.
	LostRaces int
}

// Total returns how many questions the sweep acted on or lost to others.
func (s Stats) Total() int {
	return s.TimedOut + s.Reminded + s.Abandoned + s.Escalated + s.LostRaces
}

func (s *Stats) add(o Stats) {
	s.TimedOut += o.TimedOut
	s.Reminded += o.Reminded
	s.Abandoned += o.Abandoned
	s.Escalated += o.Escalated
	s.LostRaces += o.LostRaces
}

// Sweeper ends questions past their deadline, sends reminders, cancels
// abandoned questions and purges resolved ones past the retention. It is safe for concurrent use; concurrent sweeps,
// here or on other instances sharing the store, never act twice on one
// question.
type Sweeper struct {
	b    *broker.Broker
	st   Store
	opts Options
	log  *slog.Logger
}

// Store is what the sweeper needs of b's store: its schedule, and the
// purge of questions resolved before the retention.
type Store interface {
	broker.Schedule
	Purge(ctx context.Context, before time.Time) (int, error)
	// DueEscalations is the index of escalation steps (broker.PolicyStore).
	DueEscalations(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// New returns a Sweeper that resolves through b the questions it finds due
// in st, the schedule of b's store.
func New(b *broker.Broker, st Store, opts Options) *Sweeper {
	if opts.Batch <= 0 {
		opts.Batch = DefaultBatch
	}
	opts.Batch = min(opts.Batch, MaxBatch)
	if opts.Every == 0 {
		opts.Every = DefaultEvery
	}
	opts.Every = max(opts.Every, MinEvery)
	if opts.MaxIdle == 0 {
		opts.MaxIdle = broker.MaxIdle
	}
	opts.MaxIdle = max(opts.MaxIdle, opts.Every)
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Retention <= 0 {
		opts.Retention = DefaultRetention
	}
	opts.Retention = max(opts.Retention, broker.MinRetention)
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Sweeper{b: b, st: st, opts: opts, log: opts.Logger}
}

// Sweep does everything that is due at now: deadlines first (so a
// question that expires is never reminded nor escalated), then reminders,
// escalations, then lapsed leases. It returns what it did; an error means some work is left for the
// next sweep, never that something was done twice.
func (s *Sweeper) Sweep(ctx context.Context, now time.Time) (Stats, error) {
	var total Stats
	var errs []error
	for _, step := range []struct {
		name string
		fn   func(context.Context, time.Time) (Stats, error)
	}{
		{"deadlines", s.sweepDeadlines},
		{"reminders", s.sweepReminders},
		{"escalations", s.sweepEscalations},
		{"leases", s.sweepLeases},
	} {
		st, err := step.fn(ctx, now)
		total.add(st)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", step.name, err))
		}
		if ctx.Err() != nil {
			break
		}
	}
	if err := errors.Join(errs...); err != nil {
		return total, fmt.Errorf("timeouts: sweep: %w", err)
	}
	return total, nil
}

// drain queries ids with next in batches and handles each with do until a
// query returns fewer than a batch. It stops at the first batch with a
// failure, leaving the rest for the next sweep, so a question that cannot
// be handled never makes one sweep spin.
func (s *Sweeper) drain(ctx context.Context, next func(limit int) ([]string, error), do func(id string) (Stats, error)) (Stats, error) {
	var total Stats
	for ctx.Err() == nil {
		ids, err := next(s.opts.Batch)
		if err != nil {
			return total, err
		}
		st, err := s.each(ctx, ids, do)
		total.add(st)
		if err != nil || len(ids) < s.opts.Batch || st.Total() == 0 {
			// A full batch in which nothing could be done would come
			// back unchanged: leave it to the next sweep.
			return total, err
		}
	}
	return total, ctx.Err()
}

// each runs do for every id on the sweeper's workers, until ctx ends.
func (s *Sweeper) each(ctx context.Context, ids []string, do func(id string) (Stats, error)) (Stats, error) {
	var (
		mu    sync.Mutex
		total Stats
		errs  []error
		wg    sync.WaitGroup
	)
	work := make(chan string)
	for range min(s.opts.Workers, len(ids)) {
		wg.Go(func() {
			for id := range work {
				st, err := do(id)
				mu.Lock()
				total.add(st)
				if err != nil {
					errs = append(errs, err)
				}
				mu.Unlock()
			}
		})
	}
	for _, id := range ids {
		if ctx.Err() != nil {
			break
		}
		work <- id
	}
	close(work)
	wg.Wait()
	return total, errors.Join(errs...)
}

// pending loads a question the index named, and reports false (a lost
// race) when it is gone or no longer pending.
func (s *Sweeper) pending(ctx context.Context, id string) (*broker.Question, bool, error) {
	q, err := s.st.Get(ctx, id)
	switch {
	case errors.Is(err, broker.ErrNotFound):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("question %s: %w", id, err)
	}
	return q, q.Status == broker.StatusPending, nil
}

// resolve ends a question through the broker's compare-and-set; a
// question closed meanwhile is a lost race, not an error.
func (s *Sweeper) resolve(ctx context.Context, id string, r broker.Resolution) (*broker.Question, error) {
	q, err := s.b.Resolve(ctx, id, r)
	var closed *broker.ClosedError
	switch {
	case errors.As(err, &closed):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("resolve %s: %w", id, err)
	}
	return q, nil
}

func (s *Sweeper) sweepDeadlines(ctx context.Context, now time.Time) (Stats, error) {
	return s.drain(ctx,
		func(limit int) ([]string, error) { return s.st.Due(ctx, now, limit) },
		func(id string) (Stats, error) {
			q, ok, err := s.pending(ctx, id)
			switch {
			case err != nil:
				return Stats{}, err
			case !ok:
				return Stats{LostRaces: 1}, nil
			}
			// Expire keeps what people answered, and reads again when a
			// dialog answer lands after this read.
			done, err := s.b.Expire(ctx, q, now)
			var closed *broker.ClosedError
			switch {
			case errors.As(err, &closed), errors.Is(err, broker.ErrNotFound), errors.Is(err, broker.ErrNotDue):
				return Stats{LostRaces: 1}, nil
			case err != nil:
				return Stats{}, fmt.Errorf("expire %s: %w", id, err)
			}
			s.log.Debug("question timed out", "question_id", id, "fallback", done.Fallback)
			return Stats{TimedOut: 1}, nil
		})
}

func (s *Sweeper) sweepLeases(ctx context.Context, now time.Time) (Stats, error) {
	return s.drain(ctx,
		func(limit int) ([]string, error) { return s.st.LapsedLeases(ctx, now, limit) },
		func(id string) (Stats, error) {
			done, err := s.resolve(ctx, id, broker.Resolution{
				Status: broker.StatusCancelled, Reason: AbandonedReason,
				ResolvedAt: now.UTC().Truncate(time.Millisecond),
			})
			switch {
			case err != nil:
				return Stats{}, err
			case done == nil:
				return Stats{LostRaces: 1}, nil
			}
			s.log.Info("question abandoned: lease lapsed", "question_id", id)
			return Stats{Abandoned: 1}, nil
		})
}
