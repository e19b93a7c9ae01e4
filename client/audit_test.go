package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// TestAuditLogAndSince reads a question's checked trail, then every
// entry since a time, page by page: each once, oldest first.
func TestAuditLogAndSince(t *testing.T) {
	br := newBridge(t, func(q *broker.Question) []string { return []string{"/answer " + q.ID + " 1"} })
	c := newClient(br)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now().Add(-time.Second)
	var ids []string
	for i := range 3 {
		q := deploy
		q.Question = fmt.Sprintf("Deploy %d?", i)
		res, err := c.Ask(ctx, q)
		if err != nil {
			t.Fatalf("Ask: %v", err)
		}
		ids = append(ids, res.ID)
	}
	log, err := c.AuditLog(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range log.Entries {
		kinds = append(kinds, e.Kind)
	}
	if !log.Verified || log.Problem != "" || strings.Join(kinds, ",") != "asked,posted,resolved" {
		t.Fatalf("AuditLog = %+v, kinds %v", log, kinds)
	}
	if e := log.Entries[1]; e.Target == nil || e.Target.Channel != "auto" || e.Target.Chat != "room" || e.Seq != 2 || e.Prev != log.Entries[0].Hash {
		t.Fatalf("posted entry = %+v", e)
	}
	if e := log.Entries[2]; e.Status != client.StatusAnswered || e.Choice != "Yes" || e.By == nil || e.By.Name != "ana" {
		t.Fatalf("resolved entry = %+v", e)
	}
	if e := log.Entries[0]; e.Route != "default" || e.Detail != "Deploy 0?" || len(e.Targets) != 1 {
		t.Fatalf("asked entry = %+v", e)
	}

	var got []client.AuditEntry
	if err := c.AuditSince(ctx, client.AuditQuery{Since: start, PageSize: 2}, func(e client.AuditEntry) error {
		got = append(got, e)
		return nil
	}); err != nil {
		t.Fatalf("AuditSince: %v", err)
	}
	seen := map[string]bool{}
	for i, e := range got {
		k := fmt.Sprint(e.Question, ".", e.Seq)
		if seen[k] || (i > 0 && e.At.Before(got[i-1].At)) {
			t.Fatalf("entry %s repeated or out of order in %+v", k, got)
		}
		seen[k] = true
	}
	if len(got) != 9 {
		t.Fatalf("AuditSince gave %d entries, want the 3 of each question", len(got))
	}
	stop := errors.New("enough")
	n := 0
	err = c.AuditSince(ctx, client.AuditQuery{Since: start}, func(client.AuditEntry) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("AuditSince stopped by its callback: %v after %d entries, want the callback's error after 1", err, n)
	}
	if _, err := c.AuditLog(ctx, "zzzzzz"); err == nil {
		t.Fatal("AuditLog of an unknown question: no error")
	}
}
