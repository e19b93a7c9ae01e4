package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/internal/testutil"
)

// hit is one request the bridge answered, as the network saw it.
type hit struct {
	method, path, host string
	status             int
}

// edgeBridge is a bridge wired by build as serve wires it (the default
// configuration: keyless, the web inbox and the text channel, SQLite in
// t.TempDir()), served on 127.0.0.1 with every answer recorded.
type edgeBridge struct {
	url  string // http://127.0.0.1:port
	port string
	logs *testutil.Buffer

	mu   sync.Mutex
	hits []hit
}

// startEdgeBridge starts a bridge with cfg (bridgeconfig.Default() when nil)
// listening on a free loopback port; it stops when the test ends.
func startEdgeBridge(t *testing.T, cfg *bridgeconfig.Config) *edgeBridge {
	t.Helper()
	if cfg == nil {
		c := bridgeconfig.Default()
		cfg = &c
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listen = ln.Addr().String()
	cfg.DataDir = t.TempDir()
	if err := cfg.Finish(); err != nil {
		t.Fatal(err)
	}
	e := &edgeBridge{url: "http://" + cfg.Listen, logs: &testutil.Buffer{}}
	_, e.port, _ = net.SplitHostPort(cfg.Listen)
	log := slog.New(slog.NewTextHandler(e.logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	st, elector, err := cfg.Store.Open(ctx, cfg.DataDir, log)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	a, err := build(ctx, *cfg, st, elector, time.UTC, cfg.Loopback(), log)
	if err != nil {
		cancel()
		_ = st.Close()
		t.Fatal(err)
	}
	srv := &http.Server{Handler: e.record(a.handler), ReadHeaderTimeout: 10 * time.Second}
	var wg sync.WaitGroup
	wg.Go(func() { a.broker.Run(ctx) })
	for _, job := range a.jobs {
		wg.Go(func() { job(ctx) })
	}
	wg.Go(func() { _ = srv.Serve(ln) })
	t.Cleanup(func() {
		a.api.Drain()
		a.drainMCP()
		_ = srv.Close()
		cancel()
		wg.Wait()
		a.broker.Close()
		_ = st.Close()
		if t.Failed() {
			t.Logf("bridge log:\n%s", e.logs)
		}
	})
	return e
}

// record notes the status of every answer of next.
func (e *edgeBridge) record(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		e.mu.Lock()
		e.hits = append(e.hits, hit{method: r.Method, path: r.URL.Path, host: r.Host, status: sw.status})
		e.mu.Unlock()
	})
}

// taken returns the requests answered so far and forgets them.
func (e *edgeBridge) taken() []hit {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.hits
	e.hits = nil
	return out
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.status, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (event
// streams flush and set deadlines through it).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
