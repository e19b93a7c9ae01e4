package main

import (
	"fmt"

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
	ReadTimeout  Duration `yaml:"read_timeout"`
	WriteTimeout Duration `yaml:"write_timeout"`
	IdleTimeout  Duration `yaml:"idle_timeout"`
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
