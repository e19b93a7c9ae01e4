package main

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
	"github.com/askbridge/askbridge/store/redis"
	"github.com/askbridge/askbridge/store/sqlite"
)

// check settles the driver: a store.url is parsed here, once, into the
// driver and the SQLite path; a store.redis section without a driver means
// Redis (so a team's instances never each fall back to a private SQLite
// file), and a driver that contradicts the section is an error.
func (c *StoreConfig) check() error {
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
	}
	return nil
}

// defaultLeaderLease is the leader lease with Redis when none is set.
const defaultLeaderLease = 10 * time.Second

// openStore opens the configured store and the elector that goes with it:
// a single SQLite instance always leads; Redis instances elect a leader
// with a lease in Redis.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (broker.Store, broker.Elector, error) {
	// check (as the configuration was read) settled the driver and the
	// path from store.url.
	driver, path := cfg.Store.Driver, cfg.Store.SQLite.Path
	switch driver {
	case "", "sqlite":
		if path == "" {
			path = filepath.Join(cfg.DataDir, "askbridge.db")
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
		if cfg.Store.URL != "" {
			st, err = redis.OpenURL(ctx, cfg.Store.URL, log)
		} else {
			st, err = redis.Open(ctx, cfg.Store.Redis, log)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("store: %w", err)
		}
		lease := time.Duration(cfg.Store.LeaderLease)
		if lease == 0 {
			lease = defaultLeaderLease
		}
		log.Info("store opened", "driver", "redis", "leader_lease", lease)
		return st, st.Elector(instanceID(), lease), nil
	}
	return nil, nil, fmt.Errorf("store: unknown driver %q (use sqlite or redis)", driver)
}

// instanceID names this process among the bridge instances.
func instanceID() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}
