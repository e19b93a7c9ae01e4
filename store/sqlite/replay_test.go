package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/askbridge/askbridge/store/sqlite"
)

// The replay keys live in the file: a second instance on it sees the keys
// the first took, and Purge deletes the expired rows, not the others.
func TestReplayKeysSharedAndPurged(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	a, b := openAt(t, path), openAt(t, path)
	if first, err := a.FirstSeen(ctx, "slack:req:1", time.Minute); err != nil || !first {
		t.Fatalf("first instance: FirstSeen = %v, %v; want true", first, err)
	}
	if first, err := b.FirstSeen(ctx, "slack:req:1", time.Minute); err != nil || first {
		t.Fatalf("second instance: FirstSeen = %v, %v; want false (the first took it)", first, err)
	}
	if _, err := a.FirstSeen(ctx, "slack:req:2", 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := b.Purge(ctx, time.Now().Add(-time.Hour)); err != nil {
		t.Fatalf("Purge: %v", err)
	}
	var keys []string
	rows, err := sqlite.ReaderDB(a).QueryContext(ctx, `SELECT key FROM replay_keys ORDER BY key`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if len(keys) != 1 || keys[0] != "slack:req:1" {
		t.Fatalf("rows after Purge = %v, want only the unexpired slack:req:1", keys)
	}
}

// openAt opens the store at path until the test ends.
func openAt(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
