package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// BenchmarkInboxPage reads the pages of the web inbox (the newest 100
// open questions with the count of the rest, the 50 after the middle one,
// the 50 latest resolved) from files holding 1,000 and 100,000 questions
// of which 100 are open, spread over a week: the cost of a page does not
// grow with the file. The rows are inserted the way Create and Resolve
// write them; the schema's indexes take them. "rare" is the file of
// 100,000 where only one resolved question in 100 has a copy in the web
// inbox (the rest in the terminal's): the page of resolved ones passes
// over the others, up to maxInboxScan (inbox.go).
func BenchmarkInboxPage(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		name          string
		stored, share int
	}{{"stored=1000", 1_000, 1}, {"stored=100000", 100_000, 1}, {"stored=100000/rare", 100_000, 100}} {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "inbox.db")
			fillInbox(b, path, c.stored, 100, c.share)
			s, err := sqlite.Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			brokertest.BenchInboxPages(b, s)
		})
	}
}

// fillInbox writes n questions to a new file at path, open of them
// pending and the rest answered; the pending ones and one in share of the
// answered ones have a copy in the web inbox, the others in the
// terminal's (brokertest.FillInbox). The rows are written in one
// transaction, in the order the questions were created.
func fillInbox(b *testing.B, path string, n, open, share int) {
	b.Helper()
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	brokertest.FillInbox(b, n, open, share, 1, func(q *broker.Question, to broker.Target, resolvedAt time.Time) error {
		var resolved any
		if !resolvedAt.IsZero() {
			q.Status, q.ResolvedAt = broker.StatusAnswered, resolvedAt
			q.Answers = map[string]broker.Answer{"Which database?": {Selected: []string{"SQLite"}}}
			resolved = q.ResolvedAt.UnixMilli()
		}
		data, err := json.Marshal(q)
		if err != nil {
			return err
		}
		copies, err := json.Marshal([][]string{{to.Channel, to.Chat}})
		if err != nil {
			return err
		}
		_, err = tx.Exec(`INSERT INTO questions (id, agent, status, expires_at, created_at, resolved_at, data, copies) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			q.ID, q.Agent, string(q.Status), q.ExpiresAt.UnixMilli(), q.CreatedAt.UnixMilli(), resolved, data, string(copies))
		return err
	})
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
