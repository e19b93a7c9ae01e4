package main

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

func TestPurgeOnceKeepsPendingAndRecent(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	old, recent, pending := brokertest.NewQuestion("aaaaaa", "a", now.Add(-10*24*time.Hour)), brokertest.NewQuestion("bbbbbb", "a", now.Add(-time.Hour)), brokertest.NewQuestion("cccccc", "a", now.Add(-30*24*time.Hour))
	for _, q := range []*broker.Question{old, recent, pending} {
		if _, _, err := st.Create(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Resolve(ctx, old.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(-9 * 24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Resolve(ctx, recent.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if n := purgeOnce(ctx, st, now, defaultRetention, slog.New(slog.DiscardHandler)); n != 1 {
		t.Fatalf("purged %d, want 1", n)
	}
	if _, err := st.Get(ctx, old.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("the old resolved question is still there: %v", err)
	}
	for _, id := range []string{recent.ID, pending.ID} {
		if _, err := st.Get(ctx, id); err != nil {
			t.Fatalf("%s was purged: %v", id, err)
		}
	}
}

// store.url is read once, as the configuration is checked, into the driver
// and the SQLite path that openStore uses; a bad one is refused there.
func TestStoreURLSettlesTheDriver(t *testing.T) {
	tests := []struct {
		url, driver, path, err string
	}{
		{"sqlite:///var/lib/askbridge/q.db", "sqlite", "/var/lib/askbridge/q.db", ""},
		{"sqlite://q.db", "sqlite", "q.db", ""},
		{"redis://127.0.0.1:6379/0", "redis", "", ""},
		{"rediss://cache.example:6380/1", "redis", "", ""},
		{"sqlite://", "", "", `store.url: "sqlite://" names no file; use sqlite:///path/file.db`},
		{"postgres://db/x", "", "", `store.url: "postgres://db/x" is not sqlite:///path/file.db or redis://host:port/db`},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			c := StoreConfig{URL: tt.url}
			err := c.check()
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || c.Driver != tt.driver || c.SQLite.Path != tt.path {
				t.Fatalf("driver %q path %q err %v, want %q %q", c.Driver, c.SQLite.Path, err, tt.driver, tt.path)
			}
		})
	}
}
