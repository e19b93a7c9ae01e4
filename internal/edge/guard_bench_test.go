package edge

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// BenchmarkGuard measures what the checks add to a request that passes
// them all: a JSON POST from a program to a loopback bridge with three
// webhook patterns, against the same request to the bare handler. The
// request carries its connection's local address, as net/http's do.
func BenchmarkGuard(b *testing.B) {
	nop := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	g, err := New(Config{Listen: "127.0.0.1:8377", AllowedHosts: []string{"bridge.lan"},
		Webhooks: []string{"/slack/", "/discord/interactions", "/telegram/hook"},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil))}, nop)
	if err != nil {
		b.Fatal(err)
	}
	for _, h := range []struct {
		name string
		h    http.Handler
	}{{"bare", nop}, {"guarded", g}} {
		b.Run(h.name, func(b *testing.B) {
			req := httptest.NewRequest("POST", "http://127.0.0.1:8377/v1/questions", strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
			local := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 8377}
			req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, net.Addr(local)))
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				h.h.ServeHTTP(w, req)
			}
		})
	}
}
