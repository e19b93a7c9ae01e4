package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/store/sqlite"
)

// openStore opens the configured store and the elector that goes with it:
// a single SQLite instance always leads.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (broker.Store, broker.Elector, error) {
	driver, path := cfg.Store.Driver, cfg.Store.SQLite.Path
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
	switch strings.ToLower(driver) {
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
	}
	return nil, nil, fmt.Errorf("store: unknown driver %q (use sqlite or redis)", driver)
}
