package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/askbridge/askbridge/api"
)

// serveMetrics starts the listener of metrics.listen, when one is set: it
// serves GET /metrics only, behind metrics.key_env's key when set. stop
// shuts it down and waits for it.
func serveMetrics(cfg MetricsConfig, m *api.Metrics, log *slog.Logger) (stop func(), err error) {
	if cfg.Listen == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("metrics.listen: %w", err)
	}
	key := ""
	if cfg.KeyEnv != "" {
		key = os.Getenv(cfg.KeyEnv)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Guarded(key))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: time.Minute}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	log.Info("metrics listening", "addr", ln.Addr().String(), "key", key != "")
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}
