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

// defaultLeaderLease is the leader lease with Redis when none is set.
const defaultLeaderLease = 10 * time.Second

// openStore opens the configured store and the elector that goes with it:
// a single SQLite instance always leads; Redis instances elect a leader
// with a lease in Redis.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (broker.Store, broker.Elector, error) {
	driver, path := strings.ToLower(cfg.Store.Driver), cfg.Store.SQLite.Path
	if cfg.Store.URL != "" {
		u, err := url.Parse(cfg.Store.URL)
		if err != nil {
			return nil, nil, fmt.Errorf("store: %q is not a URL: %w", cfg.Store.URL, err)
		}
		driver = u.Scheme
		if driver == "sqlite" {
			path = u.Host + u.Path
			if path == "" {
				return nil, nil, fmt.Errorf("store: %q names no file; use sqlite:///path/file.db", cfg.Store.URL)
			}
		}
	}
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
	case "redis", "rediss":
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
