package storeconfig

import (
	"testing"
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
