package api

import (
	"fmt"
	"net"
	"os"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/internal/edge"
)

// Limits is the limits section: what one agent may hold at once.
type Limits struct {
	// PendingPerAgent is how many pending questions one agent may have.
	PendingPerAgent int `yaml:"pending_per_agent"`
	// StreamsPerAgent is how many /v1/events streams one agent may hold open.
	StreamsPerAgent int `yaml:"streams_per_agent"`
	// MCPSessionsPerAgent is how many MCP sessions one agent may hold open
	// on /mcp (the MCP server's default, 16, when unset; 1–10000, and 0
	// written out is an error, not the default).
	MCPSessionsPerAgent *int `yaml:"mcp_sessions_per_agent"`
}

// Bounds of the limits section: the upper ones keep a typo (an extra
// zero or two) from switching a limit off in effect.
const (
	maxPendingPerAgent = 1_000_000
	maxStreamsPerAgent = 10_000
	maxMCPSessions     = 10_000
)

// Validate fills the defaults of the limits section (pending
// broker.DefaultPendingPerAgent, streams DefaultStreamsPerAgent; MCP
// sessions stay unset for the MCP server's own default) and checks its
// values, naming the key of a bad one.
func (l *Limits) Validate() error {
	if l.PendingPerAgent == 0 {
		l.PendingPerAgent = broker.DefaultPendingPerAgent
	}
	if l.StreamsPerAgent == 0 {
		l.StreamsPerAgent = DefaultStreamsPerAgent
	}
	if l.PendingPerAgent < 1 || l.PendingPerAgent > maxPendingPerAgent {
		return fmt.Errorf("limits.pending_per_agent: must be a whole number from 1 to %d, got %d", maxPendingPerAgent, l.PendingPerAgent)
	}
	if l.StreamsPerAgent < 1 || l.StreamsPerAgent > maxStreamsPerAgent {
		return fmt.Errorf("limits.streams_per_agent: must be a whole number from 1 to %d, got %d", maxStreamsPerAgent, l.StreamsPerAgent)
	}
	if n := l.MCPSessionsPerAgent; n != nil && (*n < 1 || *n > maxMCPSessions) {
		return fmt.Errorf("limits.mcp_sessions_per_agent: must be a whole number from 1 to %d, got %d", maxMCPSessions, *n)
	}
	return nil
}

// MetricsSettings is the metrics section: who may read /metrics beyond
// loopback.
type MetricsSettings struct {
	// Listen, when set, serves /metrics on its own address instead of the
	// main listener.
	Listen string `yaml:"listen"`
	// KeyEnv names the environment variable holding a bearer key that
	// /metrics requires on a bridge listening beyond loopback.
	KeyEnv string `yaml:"key_env"`
}

// Validate checks the metrics section. A metrics.listen address must be
// host:port; beyond loopback it needs metrics.key_env too, since it would
// otherwise be open to the network. A key must be set in its variable
// and, where /metrics is reachable beyond loopback, have at least
// minSecretLen characters. mainExposed says whether the main listener is
// reachable beyond loopback.
func (m MetricsSettings) Validate(mainExposed bool) error {
	exposed := mainExposed
	if m.Listen != "" {
		if _, _, err := net.SplitHostPort(m.Listen); err != nil {
			return fmt.Errorf("metrics.listen: %q is not host:port", m.Listen)
		}
		exposed = !edge.Loopback(m.Listen)
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

// OnMain says how the main listener answers GET /metrics: with the
// metrics (behind the key, when one is set), or with a refusal that says
// why not. Beyond loopback with neither a key nor a listener of its own,
// /metrics is not served at all. The results are Config.MetricsKey and
// Config.MetricsRefusal.
func (m MetricsSettings) OnMain(mainExposed bool) (key, refusal string) {
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
