package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/askbridge/askbridge/broker"
)

// CallbacksConfig configures webhook delivery of results.
type CallbacksConfig struct{}

// callbackJobs returns the jobs that deliver results to callback URLs.
func callbackJobs(cfg Config, b *broker.Broker, log *slog.Logger) []func(context.Context) {
	_, _, _ = cfg, b, log
	return nil
}

func runEvents(args []string, stdout, stderr io.Writer) int {
	_, _ = args, stdout
	fmt.Fprintln(stderr, "bridge events: not built yet")
	return exitFailure
}
