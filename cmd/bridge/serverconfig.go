package main

import (
	"fmt"
	"net"
	"os"
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
		return fmt.Errorf("metrics.key_env: environment variable %s is not set", m.KeyEnv)
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
