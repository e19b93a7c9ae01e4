package debugserver

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func TestServesProfilesOnLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		t.Run(addr, func(t *testing.T) {
			s, err := Start(addr)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") && !strings.HasPrefix(s.URL(), "http://[::1]:") {
				t.Errorf("URL %s is not loopback", s.URL())
			}
			code, body := get(t, s.URL())
			if code != http.StatusOK || !strings.Contains(body, "goroutine") || !strings.Contains(body, "heap") {
				t.Errorf("index: %d %q", code, body)
			}
			code, body = get(t, s.URL()+"goroutine?debug=1")
			if code != http.StatusOK || !strings.Contains(body, "goroutine profile:") {
				t.Errorf("goroutine profile: %d %q", code, body)
			}
			code, body = get(t, s.URL()+"cmdline")
			if code != http.StatusOK || body == "" {
				t.Errorf("cmdline: %d %q", code, body)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := http.Get(s.URL()); err == nil {
				t.Error("still serving after Close")
			}
		})
	}
}

func TestRefusesAddressesBeyondLoopback(t *testing.T) {
	tests := []struct{ addr, want string }{
		{"0.0.0.0:6060", "listens on every interface"},
		{":6060", "listens on every interface"},
		{"[::]:6060", "listens on every interface"},
		{"192.0.2.1:6060", "192.0.2.1 is not a loopback address"},
		{"[2001:db8::1]:6060", "is not a loopback address"},
		{"example.com:6060", `"example.com" is not an IP address or localhost`},
		{"127.0.0.1", "want a loopback HOST:PORT"},
		{"127.0.0.1:", "want a loopback HOST:PORT"},
		{"", "want a loopback HOST:PORT"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			s, err := Start(tt.addr)
			if err == nil {
				s.Close()
				t.Fatalf("Start(%q) served at %s", tt.addr, s.URL())
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "--debug-addr") {
				t.Errorf("error %q lacks %q", err, tt.want)
			}
		})
	}
}

func TestRefusesAPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	s, err := Start(ln.Addr().String())
	if err == nil {
		s.Close()
		t.Fatal("started on a port in use")
	}
	if !strings.Contains(err.Error(), "--debug-addr "+ln.Addr().String()) {
		t.Errorf("error %q does not name the address", err)
	}
}
