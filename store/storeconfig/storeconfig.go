package storeconfig

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
	"github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/sqlite"
)

// Config is the store section: which store, and how long it keeps things.
type Config struct {
	// URL is "sqlite:///path/file.db" or "redis://host:port/db"; it
	// overrides Driver.
	URL    string       `yaml:"url"`
	Driver string       `yaml:"driver"`
	SQLite SQLite       `yaml:"sqlite"`
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

// SQLite configures the embedded store.
type SQLite struct {
	// Path defaults to askbridge.db in the data directory.
	Path string `yaml:"path"`
}

// Validate checks the section and settles the driver: a store.url is
// parsed here, once, into the driver and the SQLite path; a store.redis
// section without a driver means Redis (so a team's instances never each
// fall back to a private SQLite file), and a driver that contradicts the
// section is an error.
func (c *Config) Validate() error {
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		switch {
		case err != nil || (u.Scheme != "sqlite" && u.Scheme != "redis" && u.Scheme != "rediss"):
			return fmt.Errorf("store.url: %q is not sqlite:///path/file.db or redis://host:port/db", c.URL)
		case u.Scheme == "sqlite" && u.Host+u.Path == "":
			return fmt.Errorf("store.url: %q names no file; use sqlite:///path/file.db", c.URL)
		case u.Scheme == "sqlite":
			c.Driver, c.SQLite.Path = "sqlite", u.Host+u.Path
		default:
			c.Driver = "redis" // OpenURL reads the rest, TLS for rediss
		}
		return nil
	}
	c.Driver = strings.ToLower(c.Driver)
	redisSet := len(c.Redis.Addrs) > 0 || c.Redis.MasterName != ""
	switch {
	case c.Driver == "" && redisSet:
		c.Driver = "redis"
	case c.Driver == "sqlite" && redisSet:
		return fmt.Errorf("store.driver: is sqlite but store.redis names servers; set driver: redis, or remove store.redis")
	case c.Driver != "" && c.Driver != "sqlite" && c.Driver != "redis":
		return fmt.Errorf("store.driver: %q is not sqlite or redis", c.Driver)
	}
	if c.Driver == "redis" {
		if err := c.Redis.Validate(); err != nil {
			return err
		}
	}
	if r := time.Duration(c.Retention); r < 0 {
		return fmt.Errorf("store.retention: must not be negative")
	} else if r > 0 && r < broker.MinRetention {
		return fmt.Errorf("store.retention: %s is shorter than %s; an agent in pending mode must be able to come back for its answer", r, broker.MinRetention)
	}
	return nil
}

// Name is the store as logs and check-config show it: the URL without
// its credentials, or the driver.
func (c Config) Name() string {
	if c.URL != "" {
		u := c.URL
		if i := strings.Index(u, "@"); i >= 0 {
			u = u[:strings.Index(u, "://")+3] + "…" + u[i:]
		}
		return u
	}
	if c.Driver != "" {
		return c.Driver
	}
	return "sqlite"
}

// DefaultLeaderLease is the leader lease with Redis when none is set.
const DefaultLeaderLease = 10 * time.Second

// Open opens the configured store and the elector that goes with it: a
// single SQLite instance always leads; Redis instances elect a leader
// with a lease in Redis. dataDir holds the SQLite file when no path is
// set. Validate must have settled the driver.
func (c Config) Open(ctx context.Context, dataDir string, log *slog.Logger) (broker.Store, broker.Elector, error) {
	switch c.Driver {
	case "", "sqlite":
		path := c.SQLite.Path
		if path == "" {
			path = filepath.Join(dataDir, "askbridge.db")
		}
		st, err := sqlite.Open(ctx, path)
		if err != nil {
			return nil, nil, fmt.Errorf("store: %w", err)
		}
		log.Info("store opened", "driver", "sqlite", "path", path)
		return st, broker.LocalElector{}, nil
	case "redis":
		var st *redis.Store
		var err error
		if c.URL != "" {
			st, err = redis.OpenURL(ctx, c.URL, log)
		} else {
			st, err = redis.Open(ctx, c.Redis, log)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("store: %w", err)
		}
		lease := time.Duration(c.LeaderLease)
		if lease == 0 {
			lease = DefaultLeaderLease
		}
		log.Info("store opened", "driver", "redis", "leader_lease", lease)
		return st, st.Elector(instanceID(), lease), nil
	}
	return nil, nil, fmt.Errorf("store: unknown driver %q (use sqlite or redis)", c.Driver)
}

// instanceID names this process among the bridge instances.
func instanceID() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}
