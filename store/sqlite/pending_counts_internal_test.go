package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// TestPendingCountsStep9 opens a file written before schema step 9 with
// questions pending, and checks that the counts carry over and follow
// creations, resolutions and Purge, which drops the counts at zero.
func TestPendingCountsStep9(t *testing.T) {
	ctx := context.Background()
	path, db := openAtStep(t, 8)
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, id := range []string{"old1", "old2"} {
		if _, err := db.Exec(`INSERT INTO questions (id, agent, status, expires_at, created_at, data) VALUES (?, 'a', 'pending', ?, ?, ?)`,
			id, ms(now.Add(time.Hour)), ms(now), `{"id":"`+id+`","agent":"a","status":"pending"}`); err != nil {
			t.Fatal(err)
		}
	}
	s := reopen(t, path, db)
	counts := func(want map[string]int) {
		t.Helper()
		rows, err := s.reader.Query(`SELECT agent, n FROM pending_counts`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		got := map[string]int{}
		for rows.Next() {
			var a string
			var n int
			if err := rows.Scan(&a, &n); err != nil {
				t.Fatal(err)
			}
			got[a] = n
		}
		if len(got) != len(want) {
			t.Fatalf("pending counts %v, want %v", got, want)
		}
		for a, n := range want {
			if got[a] != n {
				t.Fatalf("pending counts %v, want %v", got, want)
			}
		}
	}
	counts(map[string]int{"a": 2})
	if _, _, err := s.CreateCapped(ctx, brokertest.NewQuestion("new1", "a", now), nil, 3); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateCapped(ctx, brokertest.NewQuestion("new2", "a", now), nil, 3); err == nil {
		t.Fatal("a fourth pending question passed a cap of 3")
	}
	if _, _, err := s.Create(ctx, brokertest.NewQuestion("b1", "b", now), nil); err != nil {
		t.Fatal(err)
	}
	counts(map[string]int{"a": 3, "b": 1})
	r := broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}
	for _, id := range []string{"old1", "old2", "new1", "b1"} {
		if _, err := s.Resolve(ctx, id, r); err != nil {
			t.Fatal(err)
		}
	}
	counts(map[string]int{"a": 0, "b": 0})
	if n, err := s.CountPending(ctx); err != nil || n != 0 {
		t.Fatalf("CountPending = %d, %v; want 0", n, err)
	}
	if _, _, err := s.Create(ctx, brokertest.NewQuestion("b2", "b", now), nil); err != nil {
		t.Fatal(err)
	}
	counts(map[string]int{"a": 0, "b": 1})
	if _, err := s.Purge(ctx, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	counts(map[string]int{"b": 1})
	if _, _, err := s.Create(ctx, brokertest.NewQuestion("a2", "a", now), nil); err != nil {
		t.Fatal(err)
	}
	counts(map[string]int{"a": 1, "b": 1})
}

// openAtStep creates a database file in a test directory with only the
// first n schema steps applied, as an older version left it, and returns
// its path and an open handle for writing its rows.
func openAtStep(t *testing.T, n int) (string, *sql.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	all := migrations
	migrations = all[:n]
	err = migrate(context.Background(), db)
	migrations = all
	if err != nil {
		t.Fatal(err)
	}
	return path, db
}

// reopen closes db, a file opened by openAtStep, and opens it as a store,
// which brings it to the newest schema step.
func reopen(t *testing.T, path string, db *sql.DB) *Store {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
