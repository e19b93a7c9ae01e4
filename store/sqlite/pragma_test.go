package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/askbridge/askbridge/store/sqlite"
)

// TestPragmas checks the settings every connection gets: durability as
// before (WAL, synchronous=NORMAL) and the tuning of reads and
// checkpoints: a memory map for the readers only.
func TestPragmas(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "a.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name string
		db   interface {
			QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
		}
		pragma string
		want   string
	}{
		{"writer", sqlite.WriterConn(s), "journal_mode", "wal"},
		{"writer", sqlite.WriterConn(s), "synchronous", "1"},
		{"writer", sqlite.WriterConn(s), "wal_autocheckpoint", "4000"},
		{"writer", sqlite.WriterConn(s), "mmap_size", "0"},
		{"reader", sqlite.ReaderDB(s), "synchronous", "1"},
		{"reader", sqlite.ReaderDB(s), "mmap_size", "268435456"},
		{"reader", sqlite.ReaderDB(s), "query_only", "1"},
	} {
		var got string
		if err := c.db.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got); err != nil {
			t.Fatalf("%s: PRAGMA %s: %v", c.name, c.pragma, err)
		}
		if got != c.want {
			t.Errorf("%s: PRAGMA %s = %s, want %s", c.name, c.pragma, got, c.want)
		}
	}
}
