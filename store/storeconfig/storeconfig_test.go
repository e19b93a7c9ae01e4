package storeconfig

import (
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/config"
)

// store.url is read once, as the configuration is checked, into the driver
// and the SQLite path that Open uses; a bad one is refused there.
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
			c := Config{URL: tt.url}
			err := c.Validate()
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

// store.retention is at least a minute: an agent in pending mode comes
// back for its answer, and a bridge serves a question resolved moments
// ago from memory for less than that. Zero means the default.
func TestRetentionBounds(t *testing.T) {
	tests := []struct {
		retention time.Duration
		err       string
	}{
		{0, ""},
		{time.Minute, ""},
		{7 * 24 * time.Hour, ""},
		{-time.Second, "store.retention: must not be negative"},
		{time.Nanosecond, "store.retention: 1ns is shorter than 1m0s; an agent in pending mode must be able to come back for its answer"},
		{59 * time.Second, "store.retention: 59s is shorter than 1m0s; an agent in pending mode must be able to come back for its answer"},
	}
	for _, tt := range tests {
		t.Run(tt.retention.String(), func(t *testing.T) {
			c := Config{Retention: config.Duration(tt.retention)}
			err := c.Validate()
			if tt.err == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tt.err != "" && (err == nil || err.Error() != tt.err) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if time.Duration(c.Retention) != tt.retention {
				t.Fatalf("retention changed to %v", time.Duration(c.Retention))
			}
		})
	}
}
