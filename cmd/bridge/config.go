package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/callback"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/internal/edge"
	"github.com/askbridge/askbridge/mcp"
	"github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/timeouts"
)

// Config is the whole configuration file. Every key is documented in
// config.example.yaml; an unknown key is an error with its line number
// (internal/config). A section that configures one package has its type
// and Validate there: timeouts.Config, callback.Settings, mcp.Settings,
// edge.Settings, and the channels' Config types.
type Config struct {
	Listen   string `yaml:"listen"`
	DataDir  string `yaml:"data_dir"`
	Timezone string `yaml:"timezone"`

	Log      LogConfig              `yaml:"log"`
	Store    StoreConfig            `yaml:"store"`
	Timeouts timeouts.Config        `yaml:"timeouts"`
	Agents   []AgentConfig          `yaml:"agents"`
	People   []ResponderConfig      `yaml:"responders"`
	Routes   map[string]RouteConfig `yaml:"routes"`
	Channels ChannelsConfig         `yaml:"channels"`
	// Callbacks configures webhook delivery of results.
	Callbacks callback.Settings `yaml:"callbacks"`
	// MCP configures the MCP endpoint.
	MCP mcp.Settings `yaml:"mcp"`
	// Server, Limits and Metrics guard the HTTP edge (limits and metrics
	// in serverconfig.go).
	Server  edge.Settings `yaml:"server"`
	Limits  LimitsConfig  `yaml:"limits"`
	Metrics MetricsConfig `yaml:"metrics"`
	// Outbox sets the ask's grace and the platforms' pacing
	// (outboxconfig.go).
	Outbox OutboxConfig `yaml:"outbox"`
}

// LogConfig sets the log level and format.
type LogConfig struct {
	Level  string `yaml:"level"`
	Format string `yaml:"format"`
}

// StoreConfig chooses the store.
type StoreConfig struct {
	// URL is "sqlite:///path/file.db" or "redis://host:port/db"; it
	// overrides Driver.
	URL    string       `yaml:"url"`
	Driver string       `yaml:"driver"`
	SQLite SQLiteConfig `yaml:"sqlite"`
	Redis  redis.Config `yaml:"redis"`
	// Retention is how long resolved questions, their events and finished
	// deliveries are kept (default 7 days); the leader removes older ones
	// every hour.
	Retention config.Duration `yaml:"retention"`
	// LeaderLease is how long a leader's lease on singleton work (platform
	// receivers, the timeout trigger) lasts without renewal, with Redis;
	// another instance takes over within it (default 10s).
	LeaderLease config.Duration `yaml:"leader_lease"`
}

// SQLiteConfig configures the embedded store.
type SQLiteConfig struct {
	// Path defaults to askbridge.db in the data directory.
	Path string `yaml:"path"`
}

// KeyConfig is an agent with a bearer key read from an environment
// variable.
type KeyConfig struct {
	Name   string `yaml:"name"`
	KeyEnv string `yaml:"key_env"`
}

// ResponderConfig is a person (or gateway) answering through
// /v1/commands; User is the id recorded in answered_by (default: Name).
type ResponderConfig struct {
	KeyConfig `yaml:",inline"`
	User      string `yaml:"user"`
}

// RouteConfig names where questions go. Targets are "channel" or
// "channel:chat"; a route without targets asks nobody (its questions
// resolve at once as unsupported).
type RouteConfig struct {
	Targets    []string        `yaml:"targets"`
	Responders []string        `yaml:"responders"`
	Timeout    config.Duration `yaml:"timeout"`
	Reminders  []float64       `yaml:"reminders"`
	// PolicyConfig holds the route's team policies (policies.go).
	PolicyConfig `yaml:",inline"`
}

// DefaultListen is where the bridge listens by default.
const DefaultListen = "127.0.0.1:8377"

// defaultConfig is the configuration with no file: SQLite in the data
// directory, the web inbox and the text channel on the default route.
func defaultConfig() Config {
	return Config{Listen: DefaultListen, Timezone: "UTC", Log: LogConfig{Level: "info", Format: "text"}}
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

// loadConfig reads path ("" means defaults only) strictly.
func loadConfig(path string) (Config, error) {
	cfg := defaultConfig()
	if path == "" {
		return cfg, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("config: %w", err)
	}
	return cfg, config.Decode(path, data, &cfg)
}

// finish fills what depends on other settings and checks everything,
// returning every problem found, not only the first, joined (one a line).
func (c *Config) finish() error {
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
	p.Add(checkKeys("agents", c.agentKeys()))
	people := make([]KeyConfig, len(c.People))
	for i, person := range c.People {
		people[i] = person.KeyConfig
	}
	p.Add(checkKeys("responders", people))
	p.Add(c.checkSecrets())
	p.Add(c.Metrics.check(c.exposed()))
	if len(c.Routes) == 0 {
		c.Routes = map[string]RouteConfig{broker.DefaultRoute: {Targets: c.defaultTargets()}}
	}
	if _, ok := c.Routes[broker.DefaultRoute]; !ok {
		p.Add(fmt.Errorf("routes: a route named %q is required (questions that name no route go there)", broker.DefaultRoute))
	}
	channels := c.enabledChannels()
	for _, name := range slices.Sorted(maps.Keys(c.Routes)) {
		r := c.Routes[name]
		for i, t := range r.Targets {
			tg := parseTarget(t)
			if !channels[tg.Channel] {
				p.Add(fmt.Errorf("routes.%s.targets[%d]: channel %q is not configured (configured: %s)", name, i, tg.Channel, strings.Join(slices.Sorted(maps.Keys(channels)), ", ")))
			}
		}
		if d := time.Duration(r.Timeout); d != 0 {
			p.Add(config.At("routes."+name+".timeout", broker.CheckTimeout(d)))
		}
		p.Add(broker.ValidateReminders("routes."+name+".reminders", r.Reminders, cmp.Or(time.Duration(r.Timeout), c.Timeouts.Deadline())))
		p.Add(broker.ValidateResponders("routes."+name+".responders", r.Responders, c.brokerRoutes()[name].Targets))
		p.Add(r.checkPolicy(name))
	}
	p.Add(c.checkEscalations())
	p.Add(c.checkOnBehalfOf())
	p.Add(c.Store.check())
	p.Add(c.Callbacks.Validate())
	p.Add(c.Timeouts.Validate())
	p.Add(c.Server.Validate(len(c.Agents)))
	p.Add(c.Limits.checkLimits())
	p.Add(c.Outbox.Validate())
	p.Add(c.checkChannels())
	return errors.Join(p...)
}

// checkKeys checks a list of named keys, reporting every problem; an
// unset variable is an *config.UnsetEnvError.
func checkKeys(section string, keys []KeyConfig) error {
	var p config.Problems
	seen := map[string]bool{}
	for i, k := range keys {
		f := fmt.Sprintf("%s[%d]", section, i)
		switch {
		case strings.TrimSpace(k.Name) == "":
			p.Add(fmt.Errorf("%s.name: must not be empty", f))
		case seen[k.Name]:
			p.Add(fmt.Errorf("%s.name: %q appears twice", f, k.Name))
		}
		seen[k.Name] = true
		switch {
		case k.KeyEnv == "":
			p.Add(fmt.Errorf("%s.key_env: name the environment variable that holds the key", f))
		case os.Getenv(k.KeyEnv) == "":
			p.Add(&config.UnsetEnvError{Field: f + ".key_env", Var: k.KeyEnv})
		}
	}
	return errors.Join(p...)
}

func parseTarget(s string) broker.Target {
	ch, chat, _ := strings.Cut(strings.TrimSpace(s), ":")
	return broker.Target{Channel: ch, Chat: chat}
}

func (c *Config) brokerRoutes() map[string]broker.Route {
	out := map[string]broker.Route{}
	for name, r := range c.Routes {
		br := broker.Route{Responders: r.Responders, Timeout: time.Duration(r.Timeout), Reminders: r.Reminders, Policy: r.policy()}
		for _, t := range r.Targets {
			br.Targets = append(br.Targets, parseTarget(t))
		}
		out[name] = br
	}
	return out
}

// loopback reports whether the listen address is on loopback only.
func loopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func agentAPIKeys(list []AgentConfig) []api.Key {
	out := make([]api.Key, 0, len(list))
	for _, k := range list {
		out = append(out, api.Key{Name: k.Name, Secret: os.Getenv(k.KeyEnv)})
	}
	return out
}

func responderAPIKeys(list []ResponderConfig) []api.Key {
	out := make([]api.Key, 0, len(list))
	for _, k := range list {
		out = append(out, api.Key{Name: k.Name, User: k.User, Secret: os.Getenv(k.KeyEnv)})
	}
	return out
}
