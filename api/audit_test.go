package api_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

const auditKey = "audit-key-of-the-auditors"

// newAuditServer is the API with an audit key beside the agent keys.
func newAuditServer(t *testing.T) *server {
	t.Helper()
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	srv := api.New(api.Config{
		AgentKeys:     []api.Key{{Name: "claude", Secret: agentKey}, {Name: "other", Secret: otherKey}},
		ResponderKeys: []api.Key{{Name: "Anna", User: "anna", Secret: annaKey}},
		Loopback:      true, Logger: slog.New(slog.DiscardHandler), AuditKey: auditKey,
	}, b.Broker, b.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &server{Server: hs, api: srv, b: b.Broker, st: b.Store}
}

// askAnswered asks as key's agent and has Anna answer it from the
// terminal; it returns the question's id.
func (s *server) askAnswered(t *testing.T, key, question string) string {
	t.Helper()
	status, q := s.call(t, "POST", "/v1/questions", key, map[string]any{
		"question": question, "options": []map[string]string{{"label": "Allow"}, {"label": "Deny"}}, "wait": "0s",
	})
	if status != 202 && status != 200 {
		t.Fatalf("ask: %d %v", status, q)
	}
	id := q["id"].(string)
	if status, b := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"channel": "cli", "text": "/answer " + id + " 1"}); status != 200 {
		t.Fatalf("answer: %d %v", status, b)
	}
	return id
}

func TestAuditOverHTTP(t *testing.T) {
	s := newAuditServer(t)
	status, q := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{
		"question": "Deploy?", "options": []map[string]string{{"label": "Allow"}, {"label": "Deny"}}, "wait": "0s",
	})
	if status != 202 && status != 200 {
		t.Fatalf("ask: %d %v", status, q)
	}
	id := q["id"].(string)
	if status, b := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"channel": "cli", "text": "/snooze " + id}); status != 400 || b["reply"] != id+" cannot be snoozed: its route allows no snooze. Nothing changed." {
		t.Fatalf("snooze on a route without snooze: %d %v", status, b)
	}
	if status, b := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"channel": "cli", "text": "/answer " + id + " 1"}); status != 200 {
		t.Fatalf("answer: %d %v", status, b)
	}
	for _, key := range []string{agentKey, auditKey} {
		status, b := s.call(t, "GET", "/v1/questions/"+id+"/audit", key, nil)
		if status != 200 || b["id"] != id || b["verified"] != true || b["problem"] != nil {
			t.Fatalf("audit: %d %v", status, b)
		}
		entries := b["entries"].([]any)
		var kinds []string
		for _, e := range entries {
			kinds = append(kinds, e.(map[string]any)["kind"].(string))
		}
		if strings.Join(kinds, ",") != "asked,posted,refused,resolved" {
			t.Fatalf("audit kinds = %v, want the ask, the terminal's copy, the refused snooze and the resolution", kinds)
		}
		refused, resolved := entries[2].(map[string]any), entries[3].(map[string]any)
		by := resolved["by"].(map[string]any)
		if refused["kind"] != "refused" || resolved["status"] != "answered" || by["channel"] != "cli" || by["user"] != "anna" ||
			resolved["choice"] != "Allow" || resolved["at"] == "" || resolved["question"] != id || resolved["agent"] != "claude" || resolved["seq"] != 4.0 || len(resolved["hash"].(string)) != 64 {
			t.Fatalf("audit entries = %v", entries)
		}
	}
	for _, tc := range []struct {
		name, path, key string
		want            int
	}{
		{"another agent's question", "/v1/questions/" + id + "/audit", otherKey, 404},
		{"an unknown question", "/v1/questions/zzzzzz/audit", agentKey, 404},
		{"an unknown question with the audit key", "/v1/questions/zzzzzz/audit", auditKey, 404},
		{"no key", "/v1/questions/" + id + "/audit", "", 401},
		{"a wrong key", "/v1/questions/" + id + "/audit", auditKey + "x", 401},
	} {
		if status, b := s.call(t, "GET", tc.path, tc.key, nil); status != tc.want {
			t.Errorf("%s: %d %v, want %d", tc.name, status, b, tc.want)
		}
	}
}

// TestAuditOutlivesQuestionOverHTTP: after the question is purged, its
// agent still reads its trail, verified.
func TestAuditOutlivesQuestionOverHTTP(t *testing.T) {
	s := newAuditServer(t)
	id := s.askAnswered(t, agentKey, "Deploy?")
	if n, err := s.st.Purge(context.Background(), time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v", n, err)
	}
	if _, err := s.st.Get(context.Background(), id); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("the purged question: %v, want it gone", err)
	}
	status, b := s.call(t, "GET", "/v1/questions/"+id+"/audit", agentKey, nil)
	if status != 200 || b["verified"] != true || len(b["entries"].([]any)) != 3 {
		t.Fatalf("audit of the purged question: %d %v", status, b)
	}
	if status, _ := s.call(t, "GET", "/v1/questions/"+id+"/audit", otherKey, nil); status != 404 {
		t.Fatalf("another agent reads the purged question's audit: %d, want 404", status)
	}
}

// exportLines calls GET /v1/audit and returns the status, the content
// type and the decoded lines (or the error body).
func (s *server) exportLines(t *testing.T, query, key string) (int, string, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.URL+"/v1/audit"+query, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), lines
}

func TestAuditExportOverHTTP(t *testing.T) {
	s := newAuditServer(t)
	mine := s.askAnswered(t, agentKey, "Deploy?")
	theirs := s.askAnswered(t, otherKey, "Restart?")
	questions := func(lines []map[string]any) map[string]int {
		out := map[string]int{}
		for _, l := range lines {
			out[l["question"].(string)]++
		}
		return out
	}
	for _, tc := range []struct {
		name, query, key string
		want             map[string]int
	}{
		{"an agent's own", "?since=1h", agentKey, map[string]int{mine: 3}},
		{"the other agent's own", "", otherKey, map[string]int{theirs: 3}},
		{"the audit key reads everyone's", "?since=24h", auditKey, map[string]int{mine: 3, theirs: 3}},
		{"the audit key reads one agent's", "?since=24h&agent=other", auditKey, map[string]int{theirs: 3}},
		{"an agent names itself", "?agent=claude", agentKey, map[string]int{mine: 3}},
		{"since a time to come", "?since=" + time.Now().Add(time.Hour).UTC().Format(time.RFC3339), auditKey, map[string]int{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, ctype, lines := s.exportLines(t, tc.query, tc.key)
			got := questions(lines)
			if status != 200 || ctype != "application/x-ndjson" || len(got) != len(tc.want) {
				t.Fatalf("GET /v1/audit%s: %d %s, entries by question %v; want %v", tc.query, status, ctype, got, tc.want)
			}
			for q, n := range tc.want {
				if got[q] != n {
					t.Fatalf("GET /v1/audit%s: entries by question %v, want %v", tc.query, got, tc.want)
				}
			}
			for i := 1; i < len(lines); i++ {
				at, _ := time.Parse(time.RFC3339Nano, lines[i]["at"].(string))
				before, _ := time.Parse(time.RFC3339Nano, lines[i-1]["at"].(string))
				if at.Before(before) {
					t.Fatalf("entries out of order: %v", lines)
				}
			}
		})
	}
	// Paging: two at a time, resuming after the last line read.
	var all []map[string]any
	query := "?limit=2&since=24h"
	for range 10 {
		status, _, lines := s.exportLines(t, query, auditKey)
		if status != 200 {
			t.Fatalf("page %s: %d", query, status)
		}
		all = append(all, lines...)
		if len(lines) < 2 {
			break
		}
		last := lines[len(lines)-1]
		query = "?limit=2&since=" + url.QueryEscape(last["at"].(string)) + "&after=" + last["question"].(string) + ":" + strconv.Itoa(int(last["seq"].(float64)))
	}
	if got := questions(all); len(all) != 6 || got[mine] != 3 || got[theirs] != 3 {
		t.Fatalf("paged export: %d entries %v, want 6", len(all), got)
	}
}

func TestAuditExportRefusals(t *testing.T) {
	s := newAuditServer(t)
	s.askAnswered(t, agentKey, "Deploy?")
	for _, tc := range []struct {
		name, query, key string
		status           int
		field            string
	}{
		{"no key", "", "", 401, ""},
		{"a responder's key", "", annaKey, 401, ""},
		{"another agent's entries", "?agent=other", agentKey, 403, "agent"},
		{"a since that is no time", "?since=yesterday", agentKey, 400, "since"},
		{"a negative since", "?since=-1h", agentKey, 400, "since"},
		{"a limit of 0", "?limit=0", agentKey, 400, "limit"},
		{"a limit past the page", "?limit=5001", agentKey, 400, "limit"},
		{"an after without a seq", "?after=k7m2qx", agentKey, 400, "after"},
		{"an after with seq 0", "?after=k7m2qx:0", agentKey, 400, "after"},
		{"an after that is no id", "?after=x:1", agentKey, 400, "after"},
		{"an unknown parameter", "?from=24h", agentKey, 400, "from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, b := s.call(t, "GET", "/v1/audit"+tc.query, tc.key, nil)
			field, msg := errField(b)
			if status != tc.status || field != tc.field || msg == "" {
				t.Fatalf("GET /v1/audit%s: %d %v; want %d naming %q", tc.query, status, b, tc.status, tc.field)
			}
		})
	}
}

// TestAuditBrokenChainOverHTTP: a trail whose entry was removed by hand
// from the file answers verified false, the problem naming the entry.
func TestAuditBrokenChainOverHTTP(t *testing.T) {
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	srv := api.New(api.Config{AgentKeys: []api.Key{{Name: "claude", Secret: agentKey}}, ResponderKeys: []api.Key{{Name: "Anna", User: "anna", Secret: annaKey}},
		Loopback: true, Logger: slog.New(slog.DiscardHandler)}, b.Broker, b.Store)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	s := &server{Server: hs, api: srv, b: b.Broker, st: b.Store}
	id := s.askAnswered(t, agentKey, "Deploy?")
	db, err := sql.Open("sqlite", "file:"+b.Path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`DELETE FROM audit_log WHERE question_id = ? AND seq = 2`, id); err != nil {
		t.Fatal(err)
	}
	status, body := s.call(t, "GET", "/v1/questions/"+id+"/audit", agentKey, nil)
	if status != 200 || body["verified"] != false || !strings.HasPrefix(body["problem"].(string), "entry 2 is missing") {
		t.Fatalf("audit of a trail with entry 2 removed: %d %v", status, body)
	}
}
