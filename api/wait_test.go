package api_test

import (
	"database/sql"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

// A long-poll that fails inside the bridge answers "internal error" and
// nothing more; its cause must then be in the bridge's log, or nobody
// can find it.
func TestAFailedLongPollLogsItsCause(t *testing.T) {
	path := filepath.Join(t.TempDir(), "askbridge.db")
	b := sqlitetest.OpenBroker(t, path, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	var logs logBuffer
	srv := api.New(api.Config{Loopback: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, b.Broker, b.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(func() { srv.Drain(); hs.Close() })
	s := &server{Server: hs, api: srv, b: b.Broker, st: b.Store}

	status, body := s.call(t, http.MethodPost, "/v1/questions", "", map[string]any{
		"question": "Deploy?", "options": []map[string]string{{"label": "Yes"}, {"label": "No"}}, "wait": "0s",
	})
	if status != http.StatusAccepted {
		t.Fatalf("ask: %d %v", status, body)
	}
	id := body["id"].(string)

	// The store's file loses its questions table under the bridge.
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DROP TABLE questions`); err != nil {
		t.Fatal(err)
	}

	status, body = s.call(t, http.MethodGet, "/v1/questions/"+id+"?wait=5s", "", nil)
	if status != http.StatusInternalServerError {
		t.Fatalf("long-poll on a broken store: %d %v, want 500", status, body)
	}
	if _, msg := errField(body); msg != "internal error" {
		t.Errorf("message = %q, want the bare \"internal error\"", msg)
	}
	got := logs.String()
	if !strings.Contains(got, "question_id="+id) || !strings.Contains(got, "no such table") {
		t.Errorf("the log does not say which question failed and why:\n%s", got)
	}
}
