package debugserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// Server is a running profile server.
type Server struct {
	ln  net.Listener
	srv *http.Server
}

// Start listens on addr, which must be a loopback address with a port
// ("127.0.0.1:6060", "[::1]:6060", "localhost:6060"; port 0 picks a free
// one), and serves /debug/pprof/ until Close. Any other address is refused
// with an error that names it.
func Start(addr string) (*Server, error) {
	host, err := checkAddr(addr)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--debug-addr %s: %w", addr, err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		ln.Close()
		return nil, fmt.Errorf("--debug-addr %s: %s resolved to %s, which is not loopback", addr, host, ln.Addr())
	}
	s := &Server{ln: ln, srv: &http.Server{Handler: Handler(), ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// checkAddr refuses an address without a port or with a host that is not
// loopback, and returns the host.
func checkAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return "", fmt.Errorf("--debug-addr %q: want a loopback HOST:PORT such as 127.0.0.1:6060", addr)
	}
	if host == "localhost" {
		return host, nil
	}
	ip := net.ParseIP(host)
	switch {
	case host == "" || (ip != nil && ip.IsUnspecified()):
		return "", fmt.Errorf("--debug-addr %q: listens on every interface; profiles are served on loopback only (use 127.0.0.1:%s)", addr, port)
	case ip == nil:
		return "", fmt.Errorf("--debug-addr %q: %q is not an IP address or localhost; profiles are served on loopback only (use 127.0.0.1:%s)", addr, host, port)
	case !ip.IsLoopback():
		return "", fmt.Errorf("--debug-addr %q: %s is not a loopback address; profiles are served on loopback only (use 127.0.0.1:%s)", addr, host, port)
	}
	return host, nil
}

// Handler serves the index of profiles at /debug/pprof/ and each profile
// under it, as net/http/pprof does on the default mux.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// URL returns the index's address, such as http://127.0.0.1:6060/debug/pprof/.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/debug/pprof/" }

// Close stops the server, ending any profile being taken.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return s.srv.Close()
	}
	return nil
}
