package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/askbridge/askbridge/internal/edge"
)

// ServeMetrics starts the listener of metrics.listen, when one is set: it
// serves GET /metrics only, behind metrics.key_env's key when set, with
// the main listener's Host check and connection timeouts (server). stop
// shuts it down and waits for it.
func (m *Metrics) ServeMetrics(cfg MetricsSettings, server edge.Settings, log *slog.Logger) (stop func(), err error) {
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
	// The Host check of the main listener, with this listener's address as
	// its own, so a rebound name cannot read the metrics either.
	h, err := edge.New(edge.Config{
		Listen: cfg.Listen, PublicURL: server.PublicURL, AllowedHosts: server.AllowedHosts,
		AgentKeys: true, ResponderKeys: true, InboxLocked: true,
		Logger: log.With("component", "edge"),
	}, mux)
	if err != nil {
		ln.Close()
		return nil, err
	}
	srv := server.HTTPServer(h)
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
