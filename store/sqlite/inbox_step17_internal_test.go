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
		{"old005", "expired", `[["web",""]]`, now.Add(-5 * time.Minute), nil}, // no resolution time
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
	if got := fmt.Sprint(page(true)); got != "[old002 old005]" {
		t.Errorf("resolved web questions after the upgrade = %s, want [old002 old005], the one with no resolution time by its creation", got)
	}
	if _, err := s.Resolve(ctx, "old001", broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(page(false)); got != "[old003]" {
		t.Errorf("open web questions after a resolution = %s, want [old003]", got)
	}
	if got := fmt.Sprint(page(true)); got != "[old001 old002 old005]" {
		t.Errorf("resolved web questions after a resolution = %s, want [old001 old002 old005]", got)
	}
}

var tableScan = regexp.MustCompile(`SCAN (q|questions)\b`)

// TestInboxQueryPlans checks that the reads of a page walk a state's
// index in its order, from the cursor, without a sort or a scan of the
// questions.
func TestInboxQueryPlans(t *testing.T) {
	path, db := openAtStep(t, 16)
	s := reopen(t, path, db)
	for _, c := range []struct{ query, index string }{
		{sqlInboxOpen, "questions_open"},
		{sqlInboxCount, "questions_open"},
		{sqlInboxResolved, "questions_resolved"},
		{sqlInboxResolvedCount, "questions_resolved"},
	} {
		rows, err := s.reader.Query("EXPLAIN QUERY PLAN "+c.query, "web", int64(1)<<62, "", 10, 10)
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
		if !strings.Contains(plan, "USING INDEX "+c.index+" (") || strings.Contains(plan, "TEMP B-TREE") || tableScan.MatchString(plan) {
			t.Errorf("plan of %s:\n%s\nwant a search of %s without a sort", c.query, plan, c.index)
		}
	}
}

// TestInboxResolvedScanBound checks the bound on what a page of the
// resolved part passes over: a web question resolved before maxInboxScan
// questions of another channel is past what the first page reads (and
// counts), one resolved among them is on it, and a page read from a
// cursor near the older one shows it.
func TestInboxResolvedScanBound(t *testing.T) {
	ctx := context.Background()
	path, db := openAtStep(t, 17)
	now := time.Now().UTC().Truncate(time.Millisecond)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	insert := func(id, copies string, resolved time.Time) {
		t.Helper()
		data := fmt.Sprintf(`{"id":%q,"agent":"a","status":"answered","created_at":%q,"resolved_at":%q}`,
			id, resolved.Add(-time.Minute).Format(time.RFC3339Nano), resolved.Format(time.RFC3339Nano))
		if _, err := tx.Exec(`INSERT INTO questions (id, agent, status, expires_at, created_at, resolved_at, data, copies) VALUES (?, 'a', 'answered', ?, ?, ?, ?, ?)`,
			id, ms(resolved.Add(time.Hour)), ms(resolved.Add(-time.Minute)), ms(resolved), data, copies); err != nil {
			t.Fatal(err)
		}
	}
	at := now.Add(-time.Hour)
	insert("webold", `[["web",""]]`, at)
	for i := range maxInboxScan {
		if i == 10 {
			insert("webnew", `[["web",""]]`, at.Add(time.Duration(maxInboxScan-i)*time.Millisecond+time.Microsecond*500))
		}
		insert(fmt.Sprintf("text%05d", i), `[["text","term"]]`, at.Add(time.Duration(maxInboxScan-i)*time.Millisecond))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s := reopen(t, path, db)
	p, err := s.InboxPage(ctx, broker.InboxQuery{Channel: "web", Resolved: true, Limit: 10, Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, q := range p.Questions {
		ids = append(ids, q.ID)
	}
	if got := fmt.Sprint(ids); got != "[webnew]" || p.More != 0 {
		t.Errorf("resolved web page = %s, %d more; want [webnew], 0 more: webold is past %d questions of another channel", got, p.More, maxInboxScan)
	}
	p, err = s.InboxPage(ctx, broker.InboxQuery{Channel: "web", Resolved: true, Limit: 10, Count: 10,
		After: &broker.InboxCursor{At: at.Add(time.Millisecond), ID: "zzz"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Questions) != 1 || p.Questions[0].ID != "webold" {
		t.Errorf("resolved web page after a cursor near it = %d questions, want webold", len(p.Questions))
	}
}
