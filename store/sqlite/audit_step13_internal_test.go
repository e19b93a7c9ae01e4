package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestAuditStepKeepsTheOldLog checks schema step 13 on a file whose
// audit log the step before wrote: its entries keep their order,
// numbered within their question, with their time and agent for the
// export, unsealed; the trail goes on after them.
func TestAuditStepKeepsTheOldLog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		t.Fatal(err)
	}
	step := slices.Index(migrations, auditSchema)
	if step < 0 {
		t.Fatal("the audit step is not among the migrations")
	}
	for _, q := range append(slices.Clone(migrations[:step]),
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`,
		`INSERT INTO schema_version (version) VALUES (`+strconv.Itoa(step)+`)`,
		`INSERT INTO questions (id, agent, status, expires_at, created_at, data) VALUES ('old001', 'a1', 'pending', 0, 0, '{"id":"old001","questions":[{"question":"Deploy?"}],"route":"default","timeout":0,"expires_at":"2026-11-29T15:00:00Z"}')`,
		`INSERT INTO audit (question_id, data) VALUES ('old001', '{"at":"2026-11-29T14:00:01.5Z","kind":"vote","by":{"channel":"slack","user":"U1"},"choice":"Allow"}')`,
		`INSERT INTO audit (question_id, data) VALUES ('old001', '{"at":"2026-11-29T14:00:02Z","kind":"refused","detail":"no"}')`,
	) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	log, err := s.Audit(ctx, "old001")
	if err != nil || len(log) != 2 {
		t.Fatalf("Audit = %+v, %v; want the two old entries", log, err)
	}
	for i, e := range log {
		if e.Question != "old001" || e.Agent != "a1" || e.Seq != int64(i+1) || e.Hash != "" {
			t.Fatalf("old entry %d = %+v", i+1, e)
		}
	}
	since := time.Date(2026, 11, 29, 14, 0, 1, 500_000_000, time.UTC)
	got, err := s.AuditSince(ctx, broker.AuditFilter{Since: since, Agent: "a1"})
	if err != nil || len(got) != 2 || got[0].Kind != "vote" {
		t.Fatalf("AuditSince(the first entry's time) = %+v, %v; want both, by the time kept from their JSON", got, err)
	}
	if err := s.AddAudit(ctx, "old001", broker.AuditEntry{At: time.Now(), Kind: broker.AuditRefused}); err != nil {
		t.Fatal(err)
	}
	log, _ = s.Audit(ctx, "old001")
	if len(log) != 3 || log[2].Seq != 3 || log[2].Prev != "" || log[2].Hash == "" {
		t.Fatalf("the entry after the old ones = %+v", log[2])
	}
	if ok, bad, _ := broker.VerifyAudit(log); ok || bad != 1 {
		t.Fatalf("VerifyAudit = %v, %d; want entry 1 unsealed", ok, bad)
	}
}
