package edge

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/internal/logthrottle"
	"github.com/askbridge/askbridge/internal/netlimit"
)

// Settings is the server section of the configuration file: how the HTTP server meets the network: which Host
// names it answers to, the public address it is reached at through a
// proxy, and the limits that keep slow or idle clients from exhausting it.
type Settings struct {
	// PublicURL is the address people and platforms reach the bridge at
	// through a reverse proxy (https://bridge.example.com); its host is
	// accepted in the Host header. Setting it requires agent keys.
	PublicURL string `yaml:"public_url"`
	// AllowedHosts are further Host names the bridge answers to (a LAN
	// name); loopback names and the listen address are always accepted.
	AllowedHosts []string `yaml:"allowed_hosts"`
	// MaxConnections caps concurrent connections; the excess is refused,
	// not queued.
	MaxConnections int `yaml:"max_connections"`
	// ReadTimeout bounds reading a whole request (headers and body);
	// WriteTimeout bounds writing a response (long-polls and event streams
	// set their own deadlines); IdleTimeout closes idle keep-alive
	// connections.
	ReadTimeout  config.Duration `yaml:"read_timeout"`
	WriteTimeout config.Duration `yaml:"write_timeout"`
	IdleTimeout  config.Duration `yaml:"idle_timeout"`
}

// The defaults of the connection limits (config.example.yaml says why).
const (
	defaultMaxConnections = 10000
	defaultReadTimeout    = 30 * time.Second
	defaultWriteTimeout   = 30 * time.Second
	defaultIdleTimeout    = 90 * time.Second
)

// The ranges the connection limits must fall in.
const (
	maxMaxConnections = 1_000_000
	minReadTimeout    = time.Second
	// minWriteTimeout leaves Slack and Discord deliveries, which are
	// answered within 3 s, room for their answer.
	minWriteTimeout = 5 * time.Second
	minIdleTimeout  = time.Second
	maxIOTimeout    = 10 * time.Minute
	maxIdleTimeout  = time.Hour
)

// Validate fills in the defaults of max_connections and the three
// timeouts, and checks every key of the section; agents is how many
// agent keys the bridge has (a bridge behind a proxy needs some).
func (s *Settings) Validate(agents int) error {
	return errors.Join(s.checkConnections(), s.checkHosts(agents))
}

// checkConnections fills in the defaults of max_connections and the three
// timeouts, and checks their ranges.
func (s *Settings) checkConnections() error {
	var errs []error
	switch {
	case s.MaxConnections == 0:
		s.MaxConnections = defaultMaxConnections
	case s.MaxConnections < 0 || s.MaxConnections > maxMaxConnections:
		errs = append(errs, fmt.Errorf("server.max_connections: %d is outside 1–%d", s.MaxConnections, maxMaxConnections))
	}
	for _, d := range []struct {
		key      string
		v        *config.Duration
		def      time.Duration
		min, max time.Duration
	}{
		{"server.read_timeout", &s.ReadTimeout, defaultReadTimeout, minReadTimeout, maxIOTimeout},
		{"server.write_timeout", &s.WriteTimeout, defaultWriteTimeout, minWriteTimeout, maxIOTimeout},
		{"server.idle_timeout", &s.IdleTimeout, defaultIdleTimeout, minIdleTimeout, maxIdleTimeout},
	} {
		v := time.Duration(*d.v)
		if v == 0 {
			*d.v = config.Duration(d.def)
			continue
		}
		if v < d.min || v > d.max {
			errs = append(errs, fmt.Errorf("%s: %s is outside %s–%s", d.key, shortDuration(v), shortDuration(d.min), shortDuration(d.max)))
		}
	}
	return errors.Join(errs...)
}

// shortDuration writes d without zero units: 10m rather than 10m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// checkHosts checks public_url and allowed_hosts, and that a bridge
// reached through a proxy at public_url has agent keys: behind a proxy,
// every request comes from a loopback socket, so without keys anyone who
// reaches the proxy could ask and answer.
func (s *Settings) checkHosts(agents int) error {
	if s.PublicURL != "" {
		if _, err := ParsePublicURL(s.PublicURL); err != nil {
			return fmt.Errorf("server.public_url: %w", err)
		}
		if agents == 0 {
			return fmt.Errorf("server.public_url: set to %s, but no agent keys are configured: a bridge reached through a proxy needs them (configure agents with key_env; see docs/security.md)", s.PublicURL)
		}
	}
	for i, h := range s.AllowedHosts {
		if err := CheckHost(h); err != nil {
			return fmt.Errorf("server.allowed_hosts[%d]: %w", i, err)
		}
	}
	return nil
}

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

// HTTPServer is the bridge's HTTP server for h with the limits of s
// (after Validate). Long-polls, event streams and MCP calls move
// their own write deadlines (internal/longlived).
func (s Settings) HTTPServer(h http.Handler) *http.Server {
	read := time.Duration(s.ReadTimeout)
	// HTTP/1.1, and HTTP/2 over cleartext for clients that speak it from
	// the first byte (prior knowledge): an agent holding many long-polls
	// then multiplexes them over one connection instead of paying a
	// connection, its read and write buffers and its reader goroutine
	// for each.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true)
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: min(maxHeaderTime, read),
		ReadTimeout:       read,
		WriteTimeout:      time.Duration(s.WriteTimeout),
		IdleTimeout:       time.Duration(s.IdleTimeout),
		MaxHeaderBytes:    maxHeaderBytes,
		Protocols:         &protocols,
	}
}

// Listen listens on addr and holds at most s.MaxConnections connections
// at once (fewer when the open-file limit leaves less room); connections
// beyond are refused at once, not queued, and logged at most once a
// second with their count.
func (s Settings) Listen(addr string, log *slog.Logger) (*netlimit.Listener, error) {
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
