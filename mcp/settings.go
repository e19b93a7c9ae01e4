package mcp

import (
	"fmt"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
)

// Settings is the mcp section of the configuration file: the MCP endpoint
// of bridge serve (/mcp, streamable HTTP, behind the agent keys).
type Settings struct {
	// Enabled mounts /mcp (true when unset).
	Enabled *bool `yaml:"enabled"`
	// ProgressEvery is how often a waiting ask_user call sends a progress
	// notification (10s when unset; 100ms–5m).
	ProgressEvery ProgressInterval `yaml:"progress_every"`
	// SessionIdle closes an HTTP session that sent no request for this
	// long (DefaultSessionIdle when unset; 1s–24h). A tool call under way
	// keeps its session open.
	SessionIdle IdleTimeout `yaml:"session_idle"`
	// EmbedFilesMax is the largest file, in bytes, other than a picture,
	// that a tool result embeds (DefaultEmbedFilesMax when unset; 0
	// embeds none; at most MaxEmbedFilesMax).
	EmbedFilesMax *EmbedSize `yaml:"embed_files_max"`
}

// EmbedSize is mcp.embed_files_max, checked as the file is read.
type EmbedSize int64

// UnmarshalYAML parses a whole number of bytes within 0–MaxEmbedFilesMax.
func (e *EmbedSize) UnmarshalYAML(n *yaml.Node) error {
	v, err := strconv.ParseInt(n.Value, 10, 64)
	if n.Kind != yaml.ScalarNode || err != nil {
		return config.ValueError(n, fmt.Errorf("mcp.embed_files_max: %q is not a whole number of bytes (such as 1048576)", n.Value))
	}
	if err := CheckEmbedFilesMax(v); err != nil {
		return config.ValueError(n, err)
	}
	*e = EmbedSize(v)
	return nil
}

// EmbedLimit is Config.EmbedFilesMax for the section: 0 (the default)
// when unset, -1 for none.
func (s Settings) EmbedLimit() int64 {
	switch {
	case s.EmbedFilesMax == nil:
		return 0
	case *s.EmbedFilesMax == 0:
		return -1
	}
	return int64(*s.EmbedFilesMax)
}

// CheckEmbedFilesMax checks mcp.embed_files_max, from the file or the
// --embed-files-max flag of bridge mcp.
func CheckEmbedFilesMax(n int64) error {
	if n < 0 || n > MaxEmbedFilesMax {
		return fmt.Errorf("mcp.embed_files_max: %d is outside 0–%d bytes (0 embeds no file but pictures)", n, MaxEmbedFilesMax)
	}
	return nil
}

// DefaultSessionIdle is mcp.session_idle when unset.
const DefaultSessionIdle = 10 * time.Minute

// IdleTimeout is mcp.session_idle, checked as the file is read.
type IdleTimeout time.Duration

// UnmarshalYAML parses a Go duration within 1s–24h.
func (t *IdleTimeout) UnmarshalYAML(n *yaml.Node) error {
	v, err := broker.ParseDuration(n.Value)
	if err != nil {
		return config.ValueError(n, fmt.Errorf("mcp.session_idle: %q is not a duration (use e.g. 10m)", n.Value))
	}
	if err := CheckSessionIdle(v); err != nil {
		return config.ValueError(n, err)
	}
	*t = IdleTimeout(v)
	return nil
}

// CheckSessionIdle checks how long an idle HTTP session lives.
func CheckSessionIdle(d time.Duration) error {
	if d < time.Second || d > 24*time.Hour {
		return fmt.Errorf("mcp.session_idle: %s is outside 1s–24h", d)
	}
	return nil
}

// ProgressInterval is mcp.progress_every, checked as the file is read.
type ProgressInterval time.Duration

// UnmarshalYAML parses a Go duration within 100ms–5m.
func (p *ProgressInterval) UnmarshalYAML(n *yaml.Node) error {
	v, err := broker.ParseDuration(n.Value)
	if err != nil {
		return config.ValueError(n, fmt.Errorf("mcp.progress_every: %q is not a duration (use e.g. 10s)", n.Value))
	}
	if err := CheckProgressEvery(v); err != nil {
		return config.ValueError(n, err)
	}
	*p = ProgressInterval(v)
	return nil
}

// CheckProgressEvery checks a progress interval, from the file or the
// --progress-every flag of bridge mcp.
func CheckProgressEvery(d time.Duration) error {
	if d < 100*time.Millisecond || d > 5*time.Minute {
		return fmt.Errorf("mcp.progress_every: %s is outside 100ms–5m (clients time out without progress)", d)
	}
	return nil
}

// Validate checks the section as built in code; a file is checked as it
// is read.
func (s Settings) Validate() error {
	if d := time.Duration(s.ProgressEvery); d != 0 {
		if err := CheckProgressEvery(d); err != nil {
			return err
		}
	}
	if d := time.Duration(s.SessionIdle); d != 0 {
		if err := CheckSessionIdle(d); err != nil {
			return err
		}
	}
	if n := s.EmbedFilesMax; n != nil {
		return CheckEmbedFilesMax(int64(*n))
	}
	return nil
}
