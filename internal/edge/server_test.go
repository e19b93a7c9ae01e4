package edge

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/testutil"
)

func TestConnectionCapFitsTheOpenFileLimit(t *testing.T) {
	tests := []struct {
		name    string
		want    int
		limit   uint64
		got     int
		warning bool
	}{
		{"room to spare", 10000, 1 << 20, 10000, false},
		{"limit unknown", 10000, 0, 10000, false},
		{"limit of 1024", 10000, 1024, 1024 - fdReserve, true},
		{"limit below the reserve", 10000, 100, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &testutil.Buffer{}
			got := connectionCap(tt.want, tt.limit, slog.New(slog.NewTextHandler(logs, nil)))
			if got != tt.got {
				t.Errorf("cap = %d, want %d", got, tt.got)
			}
			if warned := strings.Contains(logs.String(), "server.max_connections lowered"); warned != tt.warning {
				t.Errorf("warning logged = %v, want %v: %s", warned, tt.warning, logs.String())
			}
		})
	}
}

// The server answers HTTP/1.1 clients and HTTP/2 cleartext clients that
// speak it from the first byte (an agent multiplexing its long-polls).
func TestHTTPServerSpeaksHTTP1AndH2C(t *testing.T) {
	var s Settings
	if err := s.Validate(0); err != nil {
		t.Fatal(err)
	}
	srv := s.HTTPServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, r.Proto)
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close() })
	h2c := &http.Transport{Protocols: new(http.Protocols)}
	h2c.Protocols.SetUnencryptedHTTP2(true)
	t.Cleanup(h2c.CloseIdleConnections)
	for _, tt := range []struct {
		name string
		tr   http.RoundTripper
		want string
	}{
		{"HTTP/1.1 client", &http.Transport{}, "HTTP/1.1"},
		{"h2c client", h2c, "HTTP/2.0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := (&http.Client{Transport: tt.tr}).Get("http://" + ln.Addr().String() + "/")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("served as %q, want %q", b, tt.want)
			}
		})
	}
}
