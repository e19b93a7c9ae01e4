package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/callback"
)

// callbackJobs returns the jobs that deliver results to callback URLs,
// with the delivery counters registered in reg (when not nil). The deliverer runs on every instance: claiming
// a delivery holds it, so no two instances send the same attempt.
func callbackJobs(cfg bridgeconfig.Config, outbox callback.Store, log *slog.Logger, reg prometheus.Registerer) []func(context.Context) {
	dc, err := cfg.Callbacks.Config()
	if err != nil {
		log.Error("callbacks are not delivered: fix the configuration", "err", err)
		return nil
	}
	dc.Registerer = reg
	d := callback.New(outbox, dc, log.With("component", "callbacks"))
	return []func(context.Context){d.Run}
}
