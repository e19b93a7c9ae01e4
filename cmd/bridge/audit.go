package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/broker"
)

// auditPurgeEvery is how often the leader removes audit trails past
// audit.retention.
const auditPurgeEvery = time.Hour

// auditJobs returns the job that keeps the audit trails to
// audit.retention: on the elected leader, once at start and then every
// auditPurgeEvery, it removes the trails whose newest entry is older. A
// store whose trails expire by themselves (Redis) is told the retention
// here, before anything is asked.
func auditJobs(cfg bridgeconfig.Config, st broker.Store, elector broker.Elector, log *slog.Logger) []func(context.Context) {
	keep := cfg.Audit.KeepFor()
	if r, ok := st.(broker.AuditRetainer); ok {
		r.SetAuditRetention(keep)
	}
	return []func(context.Context){func(ctx context.Context) {
		err := elector.RunAsLeader(ctx, "audit", func(ctx context.Context) {
			tick := time.NewTicker(auditPurgeEvery)
			defer tick.Stop()
			for {
				purgeAudit(ctx, st, time.Now(), keep, log)
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		})
		if err != nil && ctx.Err() == nil {
			log.Error("leader election", "job", "audit", "err", err)
		}
	}}
}

// purgeAudit removes the trails whose newest entry is older than keep at
// now, and logs what it did.
func purgeAudit(ctx context.Context, st broker.AuditLog, now time.Time, keep time.Duration, log *slog.Logger) {
	n, err := st.PurgeAudit(ctx, now.Add(-keep))
	switch {
	case err != nil && ctx.Err() == nil:
		log.Warn("audit retention: purge failed", "err", err)
	case n > 0:
		log.Info("audit retention: removed audit entries", "count", n, "older_than", keep)
	}
}
