package main

import (
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/askbridge/askbridge/internal/logthrottle"
	"github.com/askbridge/askbridge/internal/netlimit"
)

// maxHeaderBytes bounds a request's header block. Real requests carry a
// few KiB (a browser on localhost may add other local sites' cookies);
// the standard library's default of 1 MiB lets each slow client hold a
// megabyte.
const maxHeaderBytes = 64 << 10

// maxHeaderTime bounds reading a request's headers when read_timeout is
// longer.
const maxHeaderTime = 10 * time.Second

// fdReserve is how many file descriptors the bridge keeps for itself
// beside client connections: the store, Redis connection pools, the
// platforms' and callbacks' outbound connections, log files.
const fdReserve = 256

// httpServer is the bridge's HTTP server for h with the limits of s
// (after checkConnections). Long-polls, event streams and MCP calls move
// their own write deadlines (internal/longlived).
func (s ServerConfig) httpServer(h http.Handler) *http.Server {
	read := time.Duration(s.ReadTimeout)
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(maxHeaderTime, read),
		ReadTimeout:       read,
		WriteTimeout:      time.Duration(s.WriteTimeout),
		IdleTimeout:       time.Duration(s.IdleTimeout),
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// listen listens on addr and holds at most s.MaxConnections connections
// at once (fewer when the open-file limit leaves less room); connections
// beyond are refused at once, not queued, and logged at most once a
// second with their count.
func (s ServerConfig) listen(addr string, log *slog.Logger) (*netlimit.Listener, error) {
	max := connectionCap(s.MaxConnections, openFileLimit(), log)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	refusals := logthrottle.New(log, time.Second)
	lim, err := netlimit.Listen(ln, max, func() {
		refusals.Warn("max connections", "connection refused: server.max_connections reached", "max_connections", max)
	})
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("server.max_connections: %w", err)
	}
	return lim, nil
}

// openFileLimit is the process's limit on open files (Go raises the soft
// limit to the hard one at start), or 0 when unknown.
func openFileLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return r.Cur
}

// connectionCap is want, lowered to what an open-file limit of limit
// leaves after fdReserve: beyond that, accepting fails with "too many
// open files" and the server stalls instead of refusing. A limit of 0
// (unknown) leaves want as it is.
func connectionCap(want int, limit uint64, log *slog.Logger) int {
	if limit == 0 || limit > math.MaxInt32 {
		return want
	}
	room := max(int(limit)-fdReserve, 1)
	if room >= want {
		return want
	}
	log.Warn("server.max_connections lowered to what the open-file limit leaves; raise the limit (ulimit -n, LimitNOFILE=) to allow more",
		"max_connections", want, "open_file_limit", limit, "reserved", fdReserve, "using", room)
	return room
}
