package main

import (
	"context"
	"log/slog"

	"github.com/askbridge/askbridge/broker"
)

// TimeoutsConfig sets the default deadline and reminder points.
type TimeoutsConfig struct {
	Default   Duration  `yaml:"default"`
	Reminders []float64 `yaml:"reminders"`
}

// timeoutJobs returns the jobs that end questions at their deadlines.
func timeoutJobs(cfg Config, b *broker.Broker, elector broker.Elector, log *slog.Logger) []func(context.Context) {
	_, _, _, _ = cfg, b, elector, log
	return nil
}
