package main

import (
	"fmt"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
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
