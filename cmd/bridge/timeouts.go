package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/timeouts"
)

// timeoutJobs returns the job that ends questions at their deadlines,
// sends reminders, cancels abandoned questions and purges resolved ones
// past store.retention: the sweeper's schedule,
// run on the elected leader only (two sweepers on one store would still
// never resolve a question twice).
func timeoutJobs(cfg bridgeconfig.Config, b *broker.Broker, st timeouts.Store, elector broker.Elector, log *slog.Logger) []func(context.Context) {
	if err := cfg.Timeouts.Validate(); err != nil {
		// A file is checked as it is read; this only catches a
		// configuration built in code. The sweeper clamps what it gets.
		log.Error("timeouts configuration", "err", err)
	}
	s := timeouts.New(b, st, cfg.Timeouts.Options(time.Duration(cfg.Store.Retention), log))
	return []func(context.Context){func(ctx context.Context) {
		err := elector.RunAsLeader(ctx, "sweeper", func(ctx context.Context) {
			if err := s.Run(ctx); err != nil {
				log.Error("timeout sweeper", "err", err)
			}
		})
		if err != nil && ctx.Err() == nil {
			log.Error("leader election", "job", "sweeper", "err", err)
		}
	}}
}
