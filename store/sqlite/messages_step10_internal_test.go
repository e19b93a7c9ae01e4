package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// TestMessagesStep10 opens a file written before schema step 10, with
// questions and their copies, and checks that the questions and copies
// carry over, are found as before, and go with their question.
func TestMessagesStep10(t *testing.T) {
	ctx := context.Background()
	path, db := openAtStep(t, 9)
	now := time.Now().UTC().Truncate(time.Millisecond)
	old := now.Add(-48 * time.Hour)
	for _, q := range []struct {
		id     string
		status string
		at     time.Time
	}{{"pend01", "pending", now}, {"done01", "answered", old}} {
		if _, err := db.Exec(`INSERT INTO questions (id, agent, status, expires_at, created_at, resolved_at, data) VALUES (?, 'a', ?, ?, ?, ?, ?)`,
			q.id, q.status, ms(q.at.Add(time.Hour)), ms(q.at), ms(q.at), `{"id":"`+q.id+`","agent":"a","status":"`+q.status+`"}`); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range [][4]string{
		{"pend01", "web", "", "pend01"},
		{"pend01", "telegram", "100", "m-7"},
		{"done01", "web", "", "done01"},
		{"done01", "telegram", "100", "m-5"},
	} {
		if _, err := db.Exec(`INSERT INTO messages (question_id, channel, chat, message_id, posted_at) VALUES (?, ?, ?, ?, ?)`,
			m[0], m[1], m[2], m[3], ms(now)); err != nil {
			t.Fatal(err)
		}
	}
	// A copy deleted before the upgrade: its number is not given again.
	if _, err := db.Exec(`INSERT INTO messages (seq, question_id, channel, chat, message_id, posted_at) VALUES (50, 'done01', 'slack', 'C1', 'gone', 0)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM messages WHERE seq = 50`); err != nil {
		t.Fatal(err)
	}

	s := reopen(t, path, db)
	var version int
	if err := s.reader.QueryRow(`SELECT version FROM schema_version`).Scan(&version); err != nil || version != len(migrations) {
		t.Fatalf("schema version %d, %v; want %d", version, err, len(migrations))
	}
	for _, id := range []string{"pend01", "done01"} {
		if q, err := s.Get(ctx, id); err != nil || q.ID != id {
			t.Fatalf("Get(%s) after the upgrade = %v, %v", id, q, err)
		}
	}
	if got, want := copiesOf(t, s, "pend01"), []string{"web//pend01", "telegram/100/m-7"}; !slices.Equal(got, want) {
		t.Fatalf("copies of pend01 after the upgrade = %v, want %v", got, want)
	}
	lookups := [][4]string{
		{"web", "", "pend01", "pend01"},
		{"telegram", "100", "m-7", "pend01"},
		{"web", "", "done01", "done01"},
		{"telegram", "100", "m-5", "done01"},
	}
	for _, l := range lookups {
		if got, err := s.LookupMessage(ctx, l[0], l[1], l[2]); err != nil || got != l[3] {
			t.Fatalf("LookupMessage(%s, %s, %s) after the upgrade = %q, %v; want %s", l[0], l[1], l[2], got, err, l[3])
		}
	}
	for _, l := range [][3]string{{"web", "", "m-7"}, {"telegram", "100", "pend01"}, {"cli", "", "pend01"}} {
		if _, err := s.LookupMessage(ctx, l[0], l[1], l[2]); err == nil {
			t.Fatalf("LookupMessage(%s, %s, %s) found a copy that was never posted there", l[0], l[1], l[2])
		}
	}
	if err := s.AddMessage(ctx, "pend01", broker.MessageRef{Channel: "slack", Chat: "C1", MessageID: "1.2", PostedAt: now}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddMessage(ctx, "nope99", broker.MessageRef{Channel: "slack", Chat: "C1", MessageID: "1.3", PostedAt: now}); err == nil {
		t.Fatal("AddMessage to an unknown question succeeded")
	}
	var seq int
	if err := s.reader.QueryRow(`SELECT seq FROM messages WHERE message_id = '1.2'`).Scan(&seq); err != nil || seq <= 50 {
		t.Fatalf("the copy added after the upgrade has number %d (%v); numbers up to 50 were given before", seq, err)
	}
	q := brokertest.NewQuestion("new001", "a", now)
	q.Targets = []broker.Target{{Channel: "web"}, {Channel: "cli"}}
	if _, _, err := s.Create(ctx, q, q.Targets); err != nil {
		t.Fatal(err)
	}
	if got, want := copiesOf(t, s, "new001"), []string{"web//new001", "cli//new001"}; !slices.Equal(got, want) {
		t.Fatalf("copies of a new question = %v, want %v", got, want)
	}
	if got, err := s.List(ctx, broker.Filter{Channel: "telegram", Chat: "100"}); err != nil || len(got) != 2 {
		t.Fatalf("List of the telegram chat = %d questions, %v; want 2", len(got), err)
	}

	// Purge takes the resolved question's copies with it, and only them.
	if n, err := s.Purge(ctx, now.Add(-time.Hour)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v; want 1", n, err)
	}
	for _, l := range lookups {
		got, err := s.LookupMessage(ctx, l[0], l[1], l[2])
		if l[3] == "done01" && err == nil {
			t.Fatalf("LookupMessage(%s, %s, %s) found a copy of a purged question", l[0], l[1], l[2])
		}
		if l[3] == "pend01" && (err != nil || got != "pend01") {
			t.Fatalf("LookupMessage(%s, %s, %s) after Purge = %q, %v; want pend01", l[0], l[1], l[2], got, err)
		}
	}
	var left int
	if err := s.reader.QueryRow(`SELECT count(*) FROM messages WHERE question_id = 'done01'`).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d copies of the purged question left (%v)", left, err)
	}
}

// TestMessagesPlans checks that the lookups of copies use the indexes of
// schema step 10, none keyed by a question id alone, and none scans the
// table.
func TestMessagesPlans(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "askbridge.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name, query string
		args        []any
		want        []string
	}{
		{"messages", sqlMessages, []any{"x"}, []string{"messages_question", "sqlite_autoindex_questions_1"}},
		{"lookup", sqlLookup, []any{"web", "", "x"}, []string{"messages_platform", "messages_question", "sqlite_autoindex_questions_1"}},
		{"list by chat", `SELECT question_id FROM messages WHERE channel = ? AND chat = ?`, []any{"web", ""}, []string{"messages_chat"}},
	} {
		rows, err := s.reader.QueryContext(ctx, "EXPLAIN QUERY PLAN "+c.query, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		text := strings.Join(plan, "; ")
		for _, idx := range c.want {
			if !strings.Contains(text, "INDEX "+idx+" ") {
				t.Errorf("%s: plan %q does not use %s", c.name, text, idx)
			}
		}
		if strings.Contains(text, "SCAN messages") || strings.Contains(text, "SCAN m ") {
			t.Errorf("%s: plan %q scans the copies", c.name, text)
		}
		// The copies a question's row holds (schema step 11) are read
		// through its primary key.
		if strings.Contains(text, "SCAN questions") || strings.Contains(text, "SCAN q ") {
			t.Errorf("%s: plan %q scans the questions", c.name, text)
		}
	}
}
