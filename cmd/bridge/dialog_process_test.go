package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// TestProcessAskTimesOutWithPartialAnswers asks a three-question dialog
// with `bridge ask --json`, answers one question with `bridge answer`, and
// lets the dialog time out: ask exits 4 and prints the kept answer with
// who gave it, the default of the unanswered question that has one, and
// no answer for the other; the web inbox history says the same.
func TestProcessAskTimesOutWithPartialAnswers(t *testing.T) {
	dir, addr := t.TempDir(), freeAddr(t)
	startServe(t, addr, nil, "--data-dir", dir)
	req := filepath.Join(t.TempDir(), "dialog.json")
	body := `{"timeout": "10s", "questions": [
		{"question": "Which database?", "header": "DB", "default": ["sqlite"], "options": [{"label": "Postgres"}, {"label": "SQLite"}]},
		{"question": "Which cache?", "header": "Cache", "options": [{"label": "Redis"}, {"label": "None"}]},
		{"question": "Which queue?", "header": "Queue", "options": [{"label": "Kafka"}, {"label": "NATS"}]}]}`
	if err := os.WriteFile(req, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	ask := startBridge(t, addr, "ask", "--json", req)
	id := waitPending(t, addr, 1)[0]
	if r := runBridge(t, addr, "answer", id+".3", "NATS"); r.code != cmdline.ExitOK || !strings.HasPrefix(r.stdout, "Recorded: NATS (3 of 3)") {
		t.Fatalf("bridge answer %s.3 NATS: exit %d, %q %q", id, r.code, r.stdout, r.stderr)
	}
	if code := ask.wait(t, 40*time.Second); code != cmdline.ExitTimedOut {
		t.Fatalf("bridge ask exit %d, want %d (timed out): %s%s", code, cmdline.ExitTimedOut, ask.out.String(), ask.errb.String())
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(ask.out.String()), &res); err != nil {
		t.Fatalf("bridge ask printed %q: %v", ask.out.String(), err)
	}
	want := map[string]any{
		"Which database?": map[string]any{"selected": []any{"SQLite"}, "custom_text": "", "skipped": false, "defaulted": true},
		"Which queue?":    map[string]any{"selected": []any{"NATS"}, "custom_text": "", "skipped": false, "answered_by": map[string]any{"channel": "cli", "user": "local", "name": "local"}},
	}
	if res["status"] != "timed_out" || res["fallback"] != "partial" || !reflect.DeepEqual(res["answers"], want) {
		t.Errorf("bridge ask printed %s\nwant timed_out, fallback partial, answers %v", ask.out.String(), want)
	}
	if _, ok := res["answered_by"]; ok {
		t.Errorf("a timeout names someone as answering: %v", res["answered_by"])
	}
	const outcome = "with 1 of 3 answered: DB: SQLite (default); Cache: no answer; Queue: NATS (by local)"
	if v, ok := inboxView(t, addr, "history", id); !ok || v.Status != "timed_out" || !strings.HasPrefix(v.Outcome, "Expired at ") || !strings.HasSuffix(v.Outcome, outcome) {
		t.Errorf("the web inbox history shows %+v (listed: %v); want an outcome ending %q", v, ok, outcome)
	}
}
