package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// TestProcessAuditVerifyAndExport asks and answers through the bridge,
// then checks the question's audit trail with bridge audit verify,
// exports it with --since, breaks an entry in the file by hand and sees
// verify name it.
func TestProcessAuditVerifyAndExport(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	startServe(t, addr, nil, "--data-dir", dir)
	r := runBridge(t, addr, "ask", "--pending", "--option", "Allow", "--option", "Deny", "Deploy 412?")
	if r.code != 0 {
		t.Fatalf("bridge ask --pending: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	id := decodeResult(t, r.stdout).ID
	if r := runBridge(t, addr, "answer", id, "Allow"); r.code != 0 {
		t.Fatalf("bridge answer: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	r = runBridge(t, addr, "audit", "verify", id)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "verified: ") || !strings.HasSuffix(r.stdout, " entries\n") {
		t.Fatalf("bridge audit verify: exit %d: %q %q", r.code, r.stdout, r.stderr)
	}
	r = runBridge(t, addr, "audit", "--since", "1h", "--json")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var kinds []string
	for _, l := range lines {
		var e struct {
			Question, Kind, Hash string
			Seq                  int64
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil || e.Question != id || e.Hash == "" || e.Seq != int64(len(kinds)+1) {
			t.Fatalf("bridge audit --since 1h --json: line %q (%v)", l, err)
		}
		kinds = append(kinds, e.Kind)
	}
	if r.code != 0 || kinds[0] != "asked" || kinds[len(kinds)-1] != "resolved" {
		t.Fatalf("bridge audit --since 1h --json: exit %d, kinds %v: %s", r.code, kinds, r.stderr)
	}
	if got := "verified: " + itoa(len(kinds)) + " entries\n"; runBridge(t, addr, "audit", "verify", id).stdout != got {
		t.Fatalf("verify and export disagree on the count: export %d entries", len(kinds))
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an ID and --since", []string{"audit", "--since", "1h", id}, "give a question's ID or --since, not both"},
		{"neither", []string{"audit"}, "missing the question's ID, or --since"},
		{"a bad --since", []string{"audit", "--since", "yesterday"}, `--since: "yesterday" is neither a time`},
		{"--agent without --since", []string{"audit", "--agent", "local", id}, "--agent goes with --since"},
		{"verify without an ID", []string{"audit", "verify"}, "missing the question's ID"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBridge(t, addr, tc.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("bridge %s: exit %d, %q; want exit 2 saying %q", strings.Join(tc.args, " "), r.code, r.stderr, tc.want)
			}
		})
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "askbridge.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE audit_log SET data = replace(data, '"asked"', '"posted"') WHERE question_id = ? AND seq = 1`, id); err != nil {
		t.Fatal(err)
	}
	r = runBridge(t, addr, "audit", "verify", id)
	if r.code != 1 || !strings.Contains(r.stderr, "not verified: entry 1 (posted) was changed") {
		t.Fatalf("bridge audit verify of an edited trail: exit %d: %q %q", r.code, r.stdout, r.stderr)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestPurgeAudit removes the trails past the retention of questions no
// longer kept, and only those.
func TestPurgeAudit(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	gone := brokertest.NewQuestion(broker.NewID(), "a1", now.Add(-50*24*time.Hour))
	kept := brokertest.NewQuestion(broker.NewID(), "a1", now.Add(-50*24*time.Hour))
	recent := brokertest.NewQuestion(broker.NewID(), "a1", now.Add(-time.Hour))
	for _, q := range []*broker.Question{gone, kept, recent} {
		if _, _, err := st.Create(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Resolve(ctx, gone.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: gone.CreatedAt.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Purge(ctx, now.Add(-40*24*time.Hour)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v", n, err)
	}
	purgeAudit(ctx, st, now, 30*24*time.Hour, slog.New(slog.DiscardHandler))
	if _, err := st.Audit(ctx, gone.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("the old trail of a purged question after the audit purge: %v, want it gone", err)
	}
	for _, q := range []*broker.Question{kept, recent} {
		if log, err := st.Audit(ctx, q.ID); err != nil || len(log) != 1 {
			t.Fatalf("the trail of %s after the purge: %d entries, %v; want its ask", q.ID, len(log), err)
		}
	}
}
