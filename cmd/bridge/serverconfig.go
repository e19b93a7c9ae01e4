package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/internal/edge"
)

// ServerConfig sets how the HTTP server meets the network: which Host
// names it answers to, the public address it is reached at through a
// proxy, and the limits that keep slow or idle clients from exhausting it.
type ServerConfig struct {
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

// LimitsConfig bounds what one agent may hold at once.
type LimitsConfig struct {
	// PendingPerAgent is how many pending questions one agent may have.
	PendingPerAgent int `yaml:"pending_per_agent"`
	// StreamsPerAgent is how many /v1/events streams one agent may hold open.
	StreamsPerAgent int `yaml:"streams_per_agent"`
}

// MetricsConfig says who may read /metrics beyond loopback.
type MetricsConfig struct {
	// Listen, when set, serves /metrics on its own address instead of the
	// main listener.
	Listen string `yaml:"listen"`
	// KeyEnv names the environment variable holding a bearer key that
	// /metrics requires on a bridge listening beyond loopback.
	KeyEnv string `yaml:"key_env"`
}

// check validates the metrics section. A metrics.listen address must be
// host:port; beyond loopback it needs metrics.key_env too, since it would
// otherwise be open to the network. A key must be set in its variable
// and, where /metrics is reachable beyond loopback, have at least
// minSecretLen characters. mainExposed says whether the main listener is
// reachable beyond loopback.
func (m MetricsConfig) check(mainExposed bool) error {
	exposed := mainExposed
	if m.Listen != "" {
		if _, _, err := net.SplitHostPort(m.Listen); err != nil {
			return fmt.Errorf("metrics.listen: %q is not host:port", m.Listen)
		}
		exposed = !loopback(m.Listen)
		if exposed && m.KeyEnv == "" {
			return fmt.Errorf("metrics.listen: %s is beyond loopback, so set metrics.key_env too (a bearer key /metrics then requires)", m.Listen)
		}
	}
	if m.KeyEnv == "" {
		return nil
	}
	key := os.Getenv(m.KeyEnv)
	if key == "" {
		return &config.UnsetEnvError{Field: "metrics.key_env", Var: m.KeyEnv}
	}
	if exposed && len(key) < minSecretLen {
		return fmt.Errorf("metrics.key_env: the key in %s has %d characters; /metrics reachable beyond loopback needs a key of at least %d", m.KeyEnv, len(key), minSecretLen)
	}
	return nil
}

// onMain says how the main listener answers GET /metrics: with the
// metrics (behind the key, when one is set), or with a refusal that says
// why not. Beyond loopback with neither a key nor a listener of its own,
// /metrics is not served at all.
func (m MetricsConfig) onMain(mainExposed bool) (key, refusal string) {
	switch {
	case m.Listen != "":
		return "", "/metrics is served on its own address (metrics.listen), not here"
	case m.KeyEnv != "":
		return os.Getenv(m.KeyEnv), ""
	case mainExposed:
		return "", "/metrics is not served: this bridge is reachable beyond loopback, so set metrics.key_env (a bearer key) or metrics.listen (an address of its own)"
	}
	return "", ""
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

// checkConnections fills in the defaults of max_connections and the three
// timeouts, and checks their ranges.
func (s *ServerConfig) checkConnections() error {
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
func (s *ServerConfig) checkHosts(agents int) error {
	if s.PublicURL != "" {
		if _, err := edge.ParsePublicURL(s.PublicURL); err != nil {
			return fmt.Errorf("server.public_url: %w", err)
		}
		if agents == 0 {
			return fmt.Errorf("server.public_url: set to %s, but no agent keys are configured: a bridge reached through a proxy needs them (configure agents with key_env; see docs/security.md)", s.PublicURL)
		}
	}
	for i, h := range s.AllowedHosts {
		if err := edge.CheckHost(h); err != nil {
			return fmt.Errorf("server.allowed_hosts[%d]: %w", i, err)
		}
	}
	return nil
}

// Bounds of the limits section: the upper ones keep a typo (an extra
// zero or two) from switching a limit off in effect.
const (
	maxPendingPerAgent = 1_000_000
	maxStreamsPerAgent = 10_000
)

// checkLimits fills the defaults of the limits section (pending 1000,
// streams 16) and checks its values, naming the key of a bad one.
func (l *LimitsConfig) checkLimits() error {
	if l.PendingPerAgent == 0 {
		l.PendingPerAgent = broker.DefaultPendingPerAgent
	}
	if l.StreamsPerAgent == 0 {
		l.StreamsPerAgent = api.DefaultStreamsPerAgent
	}
	if l.PendingPerAgent < 1 || l.PendingPerAgent > maxPendingPerAgent {
		return fmt.Errorf("limits.pending_per_agent: must be a whole number from 1 to %d, got %d", maxPendingPerAgent, l.PendingPerAgent)
	}
	if l.StreamsPerAgent < 1 || l.StreamsPerAgent > maxStreamsPerAgent {
		return fmt.Errorf("limits.streams_per_agent: must be a whole number from 1 to %d, got %d", maxStreamsPerAgent, l.StreamsPerAgent)
	}
	return nil
}
