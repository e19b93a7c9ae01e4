package timeouts

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/robfig/cron/v3"
)

// Run sweeps at once, then whenever something falls due, and purges at
// once and then every PurgeEvery, until ctx ends; it returns when the
// sweep under way, if any, has finished.
//
// Between sweeps it sleeps until the earliest of: the next entry of the
// schedule, as the store tells it (NextScheduled); the time
// noted by the broker when a question asked or amended on this instance
// adds an earlier one; and Options.MaxIdle, which bounds how late work
// written by another instance on a shared store is seen. Two sweeps are
// at least Options.Every apart, so work that keeps falling due is taken
// in batches. When the store fails to tell its next due time, the next
// sweep is Every later. A panicking sweep is logged and does not stop the
// loop. Run may be called again after it returned (for example each time
// this instance regains leadership).
func (s *Sweeper) Run(ctx context.Context) error {
	logger := cronLogger{s.log}
	c := cron.New(
		cron.WithLogger(logger),
		// Skip before Recover: the other order loses the job for good
		// after its first panic.
		cron.WithChain(cron.SkipIfStillRunning(logger), cron.Recover(logger)),
	)
	purge, err := c.AddFunc(fmt.Sprintf("@every %s", PurgeEvery), func() { s.purgeNow(ctx) })
	if err != nil {
		return fmt.Errorf("timeouts: schedule purges every %s: %w", PurgeEvery, err)
	}
	// The first sweep and purge run before the schedule starts, so work
	// that fell due while the bridge was down is done now.
	s.b.TakeScheduled()
	s.sweepSafely(ctx)
	c.Entry(purge).WrappedJob.Run()
	c.Start()
	defer func() { <-c.Stop().Done() }()

	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	last := time.Now()
	for {
		wake := s.nextWake(ctx, last)
		for sleeping := true; sleeping; {
			timer.Reset(time.Until(wake))
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
				sleeping = false
			case <-s.b.ScheduleWritten():
				if at := s.b.TakeScheduled(); !at.IsZero() {
					wake = s.earlier(wake, at, last)
				}
			}
		}
		// What is noted from here on may not be seen by this sweep: it
		// wakes the next wait.
		s.b.TakeScheduled()
		last = time.Now()
		s.sweepSafely(ctx)
	}
}

// nextWake returns the wall-clock time of the next sweep after one that
// started at last: the store's next due time, bounded by MaxIdle, or
// Every when the store fails to tell.
func (s *Sweeper) nextWake(ctx context.Context, last time.Time) time.Time {
	now := time.Now()
	at, ok, err := s.st.NextScheduled(ctx)
	switch {
	case err != nil:
		if ctx.Err() == nil {
			s.log.Warn("timeout sweep: read the next due time", "err", err)
		}
		return now.Add(s.opts.Every)
	case ok:
		return s.earlier(now.Add(s.opts.MaxIdle), at, last)
	}
	return now.Add(s.opts.MaxIdle)
}

// earlier returns wake, or the wall-clock time at which at (on the
// broker's clock) comes when that is earlier, but never less than Every
// after last.
func (s *Sweeper) earlier(wake, at, last time.Time) time.Time {
	t := time.Now().Add(at.Sub(s.b.Now()))
	if t.Before(wake) {
		wake = t
	}
	if floor := last.Add(s.opts.Every); wake.Before(floor) {
		wake = floor
	}
	return wake
}

// sweepSafely runs one sweep and logs a panic instead of ending the loop.
func (s *Sweeper) sweepSafely(ctx context.Context) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("timeout sweep panicked", "panic", r)
		}
	}()
	s.sweepNow(ctx)
}

// sweepNow runs one sweep at the broker's clock and logs what it did.
func (s *Sweeper) sweepNow(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	st, err := s.Sweep(ctx, s.b.Now())
	if err != nil && ctx.Err() == nil {
		s.log.Error("timeout sweep", "err", err, "timed_out", st.TimedOut, "reminded", st.Reminded, "abandoned", st.Abandoned, "escalated", st.Escalated)
		return
	}
	if st.Total() > 0 {
		s.log.Info("timeout sweep", "timed_out", st.TimedOut, "reminded", st.Reminded, "abandoned", st.Abandoned, "escalated", st.Escalated, "lost_races", st.LostRaces)
	}
}

// cronLogger passes the scheduler's messages to slog. The scheduler
// reports every wake-up at its info level, so those go to debug.
type cronLogger struct{ log *slog.Logger }

// Info logs a routine scheduler message at debug level.
func (l cronLogger) Info(msg string, kv ...any) {
	l.log.Debug("purge scheduler: "+msg, kv...)
}

// Error logs a scheduler failure, such as a recovered panic.
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("purge scheduler: "+msg, append(kv, "err", err)...)
}
