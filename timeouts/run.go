package timeouts

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/robfig/cron/v3"
)

// Run sweeps at once, then every Options.Every (one second by default)
// with the broker's clock, and purges at once and then every PurgeEvery,
// until ctx ends; it returns when the sweep under
// way, if any, has finished. A sweep still running when the next is due
// is skipped, and a panicking sweep is logged and does not stop the
// schedule. Run may be called again after it returned (for example each
// time this instance regains leadership).
func (s *Sweeper) Run(ctx context.Context) error {
	logger := cronLogger{s.log}
	c := cron.New(
		cron.WithSeconds(),
		cron.WithLogger(logger),
		// Skip before Recover: the other order loses the job for good
		// after its first panic.
		cron.WithChain(cron.SkipIfStillRunning(logger), cron.Recover(logger)),
	)
	id, err := c.AddFunc(fmt.Sprintf("@every %s", s.opts.Every), func() { s.sweepNow(ctx) })
	if err != nil {
		return fmt.Errorf("timeouts: schedule sweeps every %s: %w", s.opts.Every, err)
	}
	purge, err := c.AddFunc(fmt.Sprintf("@every %s", PurgeEvery), func() { s.purgeNow(ctx) })
	if err != nil {
		return fmt.Errorf("timeouts: schedule purges every %s: %w", PurgeEvery, err)
	}
	// The first sweep and purge run before the schedule starts, through
	// the same chain, so work that fell due while the bridge was down is
	// done now.
	c.Entry(id).WrappedJob.Run()
	c.Entry(purge).WrappedJob.Run()
	c.Start()
	<-ctx.Done()
	<-c.Stop().Done()
	return nil
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
	l.log.Debug("sweep scheduler: "+msg, kv...)
}

// Error logs a scheduler failure, such as a recovered panic.
func (l cronLogger) Error(err error, msg string, kv ...any) {
	l.log.Error("sweep scheduler: "+msg, append(kv, "err", err)...)
}
