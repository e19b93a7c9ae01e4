package sqlite

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestInboxStep17 opens a file written before schema step 17 and checks
// that its questions are in the inbox indexes: the pending ones with an
// in-process copy or a posted one on the channel among the open, by
// creation time, the resolved one among the resolved, and none of
// another channel; and that the indexes follow the questions from then
// on.
func TestInboxStep17(t *testing.T) {
	ctx := context.Background()
	path, db := openAtStep(t, 16)
	now := time.Now().UTC().Truncate(time.Millisecond)
	rows := []struct {
		id, status, copies string
		created            time.Time
		resolved           any
	}{
		{"old001", "pending", `[["web",""]]`, now.Add(-3 * time.Minute), nil},
		{"old002", "answered", `[["web",""]]`, now.Add(-4 * time.Minute), ms(now.Add(-time.Minute))},
		{"old003", "pending", `[]`, now.Add(-2 * time.Minute), nil}, // a posted copy, below
		{"old004", "pending", `[["text","term"]]`, now.Add(-time.Minute), nil},
	}
	for _, r := range rows {
		data := fmt.Sprintf(`{"id":%q,"agent":"a","status":%q}`, r.id, r.status)
		if _, err := db.Exec(`INSERT INTO questions (id, agent, status, expires_at, created_at, resolved_at, data, copies) VALUES (?, 'a', ?, ?, ?, ?, ?, ?)`,
			r.id, r.status, ms(now.Add(time.Hour)), ms(r.created), r.resolved, data, r.copies); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO messages (question_id, question_created_at, channel, chat, message_id, posted_at) VALUES ('old003', ?, 'web', '', 'old003', ?)`,
		ms(rows[2].created), ms(now)); err != nil {
		t.Fatal(err)
	}
	s := reopen(t, path, db)
	page := func(resolved bool) []string {
		t.Helper()
		p, err := s.InboxPage(ctx, broker.InboxQuery{Channel: "web", Resolved: resolved, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, q := range p.Questions {
			ids = append(ids, q.ID)
		}
		return ids
	}
	if got := fmt.Sprint(page(false)); got != "[old003 old001]" {
		t.Errorf("open web questions after the upgrade = %s, want [old003 old001]", got)
	}
	if got := fmt.Sprint(page(true)); got != "[old002]" {
		t.Errorf("resolved web questions after the upgrade = %s, want [old002]", got)
	}
	if _, err := s.Resolve(ctx, "old001", broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(page(false)); got != "[old003]" {
		t.Errorf("open web questions after a resolution = %s, want [old003]", got)
	}
	if got := fmt.Sprint(page(true)); got != "[old001 old002]" {
		t.Errorf("resolved web questions after a resolution = %s, want [old001 old002]", got)
	}
}

var tableScan = regexp.MustCompile(`SCAN (i|q|inbox|questions)\b`)

// TestInboxQueryPlans checks that the reads of a page walk the inbox
// table's key in its order, without a sort or a scan.
func TestInboxQueryPlans(t *testing.T) {
	path, db := openAtStep(t, 16)
	s := reopen(t, path, db)
	for _, q := range []string{sqlInboxPage, sqlInboxCount} {
		rows, err := s.reader.Query("EXPLAIN QUERY PLAN "+q, "web", true, int64(1)<<62, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		var plan string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan += detail + "; "
		}
		rows.Close()
		indexed := strings.Contains(plan, "PRIMARY KEY (channel=? AND open=? AND (at,question_id)<(?,?))")
		if !indexed || strings.Contains(plan, "TEMP B-TREE") || tableScan.MatchString(plan) {
			t.Errorf("plan of %s:\n%s\nwant a search of an inbox index without a sort", q, plan)
		}
	}
}
