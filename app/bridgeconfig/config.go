package bridgeconfig

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/app/outboxconfig"
	"github.com/askbridge/askbridge/app/routes"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/callback"
	"github.com/askbridge/askbridge/channels/builtin"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/internal/edge"
	"github.com/askbridge/askbridge/mcp"
	"github.com/askbridge/askbridge/store/storeconfig"
	"github.com/askbridge/askbridge/timeouts"
)

// Config is the whole configuration file. Every key is documented in
// config.example.yaml; an unknown key is an error with its line number
// (internal/config). Each section has its type and Validate in the
// package it configures.
type Config struct {
	Listen   string `yaml:"listen"`
	DataDir  string `yaml:"data_dir"`
	Timezone string `yaml:"timezone"`

	Log        Log                     `yaml:"log"`
	Store      storeconfig.Config      `yaml:"store"`
	Timeouts   timeouts.Config         `yaml:"timeouts"`
	Agents     []api.AgentSettings     `yaml:"agents"`
	Responders []api.ResponderSettings `yaml:"responders"`
	// People and Groups name the humans who answer, with every account
	// of theirs (docs/people.md); Finish builds Directory from them.
	People    []broker.Person     `yaml:"people"`
	Groups    map[string][]string `yaml:"groups"`
	Directory *broker.People      `yaml:"-"`
	Routes    routes.Config       `yaml:"routes"`
	Channels  builtin.Config      `yaml:"channels"`
	// Callbacks configures webhook delivery of results.
	Callbacks callback.Settings `yaml:"callbacks"`
	// MCP configures the MCP endpoint.
	MCP mcp.Settings `yaml:"mcp"`
	// Server, Limits and Metrics guard the HTTP edge.
	Server  edge.Settings       `yaml:"server"`
	Limits  api.Limits          `yaml:"limits"`
	Metrics api.MetricsSettings `yaml:"metrics"`
	// Outbox sets the ask's grace and the platforms' pacing.
	Outbox outboxconfig.Config `yaml:"outbox"`
	// Audit keeps the questions' audit trails and names the key that
	// reads every agent's.
	Audit api.AuditSettings `yaml:"audit"`
}

// Log sets the log level and format.
type Log struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// DefaultListen is where the bridge listens by default.
const DefaultListen = "127.0.0.1:8377"

// Default is the configuration with no file: SQLite in the data
// directory, the web inbox and the text channel on the default route.
func Default() Config {
	return Config{Listen: DefaultListen, Timezone: "UTC", Log: Log{Level: "info", Format: "text"}}
}

// DefaultDataDir is where the bridge keeps its data when none is named:
// $ASKBRIDGE_DATA_DIR, else $XDG_DATA_HOME/askbridge, else
// ~/.local/share/askbridge.
func DefaultDataDir() string {
	if d := os.Getenv("ASKBRIDGE_DATA_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "askbridge")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "askbridge")
	}
	return "askbridge-data"
}

// Load reads path ("" means defaults only) strictly, over the defaults.
func Load(path string) (Config, error) {
	cfg := Default()
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	err = config.Decode(path, data, &cfg)
	var ce *config.Error
	if errors.As(err, &ce) {
		ce.Problems = hintMisplaced(data, ce.Problems)
	}
	return cfg, err
}

// Finish fills what depends on other settings and checks everything,
// returning every problem found, not only the first, joined (one a line).
func (c *Config) Finish() error {
	var p config.Problems
	if c.DataDir == "" {
		c.DataDir = DefaultDataDir()
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		p.Add(fmt.Errorf("listen: %q is not host:port: %w", c.Listen, err))
	}
	if _, err := time.LoadLocation(c.Timezone); err != nil {
		p.Add(fmt.Errorf("timezone: %q is not a time zone name (e.g. UTC, Europe/Berlin)", c.Timezone))
	}
	switch c.Log.Level {
	case "", "debug", "info", "warn", "error":
	default:
		p.Add(fmt.Errorf("log.level: %q is not one of debug, info, warn, error", c.Log.Level))
	}
	switch c.Log.Format {
	case "", "text", "json":
	default:
		p.Add(fmt.Errorf("log.format: %q is not text or json", c.Log.Format))
	}
	p.Add(broker.ValidateReminders("timeouts.reminders", c.Timeouts.Reminders, c.Timeouts.Deadline()))
	p.Add(api.ValidateKeys(c.Agents, c.Responders, c.Exposed()))
	dir, err := broker.NewPeople(c.People, c.Groups)
	p.Add(err)
	c.Directory = dir
	p.Add(c.Channels.ValidatePeople(c.People, c.Exposed()))
	p.Add(c.Metrics.Validate(c.Exposed()))
	if len(c.Routes) == 0 {
		c.Routes = routes.Config{broker.DefaultRoute: {Targets: c.Channels.DefaultTargets()}}
	}
	channels := c.Channels.Enabled()
	if err == nil {
		p.Add(c.Routes.Validate(channels, c.Timeouts.Deadline(), dir))
		p.Add(api.ValidateOnBehalfOf(c.Agents, channels, dir))
	}
	p.Add(c.Store.Validate())
	p.Add(c.Callbacks.Validate())
	p.Add(c.Timeouts.Validate())
	p.Add(c.Server.Validate(len(c.Agents)))
	p.Add(c.Limits.Validate())
	p.Add(c.Outbox.Validate())
	p.Add(c.Channels.Validate())
	p.Add(c.Audit.Validate(time.Duration(c.Store.Retention), c.Exposed(), c.Agents, c.Responders))
	return errors.Join(p...)
}

// Loopback reports whether the bridge listens on loopback only.
func (c *Config) Loopback() bool { return edge.Loopback(c.Listen) }

// Exposed reports whether people and programs beyond this machine can
// reach the bridge: it listens beyond loopback, or a reverse proxy brings
// them in (server.public_url).
func (c *Config) Exposed() bool {
	return !c.Loopback() || c.Server.PublicURL != ""
}
