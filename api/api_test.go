package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/internal/park"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
)

const (
	agentKey = "agent-key-1"
	otherKey = "agent-key-2"
	annaKey  = "responder-key-anna"
)

type server struct {
	*httptest.Server
	api     *api.Server
	b       *broker.Broker
	st      broker.Store
	metrics *api.Metrics
}

// newServer starts the API on a test server; configure adjusts the HTTP
// server (its timeouts) before it starts.
func newServer(t testing.TB, configure ...func(*http.Server)) *server {
	t.Helper()
	return newServerParking(t, true, configure...)
}

// newServerParking is newServer with long-polls parked or not.
func newServerParking(t testing.TB, parked bool, configure ...func(*http.Server)) *server {
	t.Helper()
	var b *sqlitetest.Broker
	var metrics *api.Metrics
	b = sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""), func(c *broker.Config) {
		metrics = api.NewMetrics(func() int { return b.Waiting() }, c.Store)
		c.Observer = metrics
	})
	b.Register(&cli.Channel{})
	log := slog.New(slog.DiscardHandler)
	// Long-polls park their connections, as bridge serve's do.
	parking := park.New()
	cfg := api.Config{
		AgentKeys:     []api.Key{{Name: "claude", Secret: agentKey}, {Name: "other", Secret: otherKey}},
		ResponderKeys: []api.Key{{Name: "Anna", User: "anna", Secret: annaKey}},
		Loopback:      true, Logger: log, Metrics: metrics,
	}
	if parked {
		cfg.Parking = parking
	}
	srv := api.New(cfg, b.Broker, b.Store)
	hs := httptest.NewUnstartedServer(srv)
	for _, f := range configure {
		f(hs.Config)
	}
	hs.Start()
	served := make(chan struct{})
	go func() { defer close(served); _ = hs.Config.Serve(parking) }()
	t.Cleanup(func() {
		srv.Drain()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := parking.Wait(ctx); err != nil {
			t.Errorf("parked long-polls still answering after the drain: %v", err)
		}
		_ = parking.Close()
		hs.Close()
		<-served
	})
	return &server{Server: hs, api: srv, b: b.Broker, st: b.Store, metrics: metrics}
}

// call sends a request and returns the status and decoded JSON body.
func (s *server) call(t *testing.T, method, path, key string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	default:
		b, _ := json.Marshal(v)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.URL+path, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("%s %s: body %q: %v", method, path, raw, err)
		}
	}
	return resp.StatusCode, out
}

func errField(body map[string]any) (string, string) {
	e, _ := body["error"].(map[string]any)
	f, _ := e["field"].(string)
	m, _ := e["message"].(string)
	return f, m
}

func (s *server) count(t *testing.T) int {
	qs, err := s.st.List(context.Background(), broker.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return len(qs)
}

func TestAskBadInput(t *testing.T) {
	s := newServer(t)
	opts := func(labels ...string) []map[string]string {
		var out []map[string]string
		for _, l := range labels {
			out = append(out, map[string]string{"label": l})
		}
		return out
	}
	q := func(n int) []map[string]any {
		var out []map[string]any
		for i := range n {
			out = append(out, map[string]any{"question": "Q" + string(rune('a'+i))})
		}
		return out
	}
	tests := []struct {
		name   string
		body   any
		status int
		field  string
		msg    string
	}{
		{"malformed JSON", `{"question": "x",`, 400, "", "the request body ends before its JSON is complete"},
		{"empty body", ``, 400, "", "the request body is empty"},
		{"unknown field", `{"question":"x","colour":"red"}`, 400, "colour", "unknown field colour"},
		{"wrong type", `{"question":"x","multi_select":"yes"}`, 400, "multi_select", "multi_select: must be true or false, got a string"},
		{"0 prompts", map[string]any{"questions": []any{}}, 400, "questions", "at least one question"},
		{"5 prompts", map[string]any{"questions": q(5)}, 400, "questions", "at most 4 questions per dialog, got 5"},
		{"1 option", map[string]any{"question": "x", "options": opts("A")}, 400, "options", "got 1"},
		{"5 options", map[string]any{"question": "x", "options": opts("A", "B", "C", "D", "E")}, 400, "options", "got 5"},
		{"duplicate labels", map[string]any{"question": "x", "options": opts("A", "A")}, 400, "options[1].label", "duplicate label"},
		{"6-word label", map[string]any{"question": "x", "options": opts("a b c d e f", "B")}, 400, "options[0].label", "1–5 words, got 6"},
		{"recommended second", map[string]any{"question": "x", "options": opts("A", "B (Recommended)")}, 400, "options[1].label", "only the first option"},
		{"header of 17", map[string]any{"question": "x", "header": "abcdefghijklmnopq"}, 400, "header", "at most 16 characters, got 17"},
		{"empty question", map[string]any{"question": "", "options": opts("A", "B")}, 400, "question", "must not be empty"},
		{"timeout 1s", map[string]any{"question": "x", "timeout": "1s"}, 400, "timeout", "between 10s and 7d"},
		{"timeout 30d", map[string]any{"question": "x", "timeout": "720h"}, 400, "timeout", "between 10s and 7d"},
		{"bad duration", map[string]any{"question": "x", "timeout": "soon"}, 400, "timeout", `timeout: "soon" is not a duration (use e.g. 30s, 30m, 2h, 7d)`},
		{"bad lease", map[string]any{"question": "x", "lease": "half an hour"}, 400, "lease", `"half an hour" is not a duration`},
		{"body over 64 KiB", map[string]any{"question": "x", "context": strings.Repeat("x", 70<<10)}, 413, "", "larger than the limit of 64 KiB"},
		{"dialog field named", map[string]any{"questions": []any{map[string]any{"question": "a"}, map[string]any{"question": "b", "options": opts("A")}}}, 400, "questions[1].options", "got 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := s.call(t, "POST", "/v1/questions", agentKey, tt.body)
			field, msg := errField(body)
			if status != tt.status || field != tt.field || !strings.Contains(msg, tt.msg) {
				t.Fatalf("got %d %s: %q; want %d %s: …%s…", status, field, msg, tt.status, tt.field, tt.msg)
			}
			if n := s.count(t); n != 0 {
				t.Fatalf("bad input stored %d question(s)", n)
			}
		})
	}
}

func TestAuth(t *testing.T) {
	s := newServer(t)
	body := map[string]any{"question": "x", "wait": "0s"}
	for _, key := range []string{"", "wrong", agentKey + "x"} {
		if status, b := s.call(t, "POST", "/v1/questions", key, body); status != 401 {
			t.Fatalf("key %q: %d %v", key, status, b)
		}
	}
	status, b := s.call(t, "POST", "/v1/questions", agentKey, body)
	if status != 202 {
		t.Fatalf("ask: %d %v", status, b)
	}
	id := b["id"].(string)
	if status, _ := s.call(t, "GET", "/v1/questions/"+id, otherKey, nil); status != 404 {
		t.Fatalf("another agent reads: %d, want 404", status)
	}
	if status, _ := s.call(t, "POST", "/v1/questions/"+id+"/cancel", otherKey, nil); status != 404 {
		t.Fatalf("another agent cancels: %d, want 404", status)
	}
	if _, b := s.call(t, "GET", "/v1/questions", otherKey, nil); len(b["questions"].([]any)) != 0 {
		t.Fatal("another agent lists this agent's question")
	}
	if status, _ := s.call(t, "POST", "/v1/commands", agentKey, map[string]any{"text": "/answer " + id + " x"}); status != 401 {
		t.Fatalf("an agent key answers: %d, want 401", status)
	}
}

func TestIdempotencyConflict(t *testing.T) {
	s := newServer(t)
	body := map[string]any{"question": "x", "session_id": "s", "tool_call_id": "t1", "wait": "0s"}
	_, first := s.call(t, "POST", "/v1/questions", agentKey, body)
	_, again := s.call(t, "POST", "/v1/questions", agentKey, body)
	if first["id"] != again["id"] {
		t.Fatalf("re-ask made a new question: %v vs %v", first["id"], again["id"])
	}
	body["question"] = "y"
	status, b := s.call(t, "POST", "/v1/questions", agentKey, body)
	if _, msg := errField(b); status != 409 || !strings.Contains(msg, "different body") {
		t.Fatalf("conflict: %d %v", status, b)
	}
	if n := s.count(t); n != 1 {
		t.Fatalf("%d questions stored, want 1", n)
	}
}

func TestAskAnswerOverHTTP(t *testing.T) {
	s := newServer(t)
	unicode := "Welche Datenbank? 数据库 🚀 <b>&</b>"
	body := map[string]any{
		"question": unicode, "header": "DB 🚀", "context": "Kontext: ü 日本",
		"options":    []map[string]string{{"label": "Postgres ✓", "description": "größer"}, {"label": "SQLite"}, {"label": "Maria"}},
		"session_id": "sess-ü", "wait": "20s",
	}
	done := make(chan map[string]any)
	go func() {
		status, b := s.call(t, "POST", "/v1/questions", agentKey, body)
		if status != 200 {
			t.Errorf("blocking ask: %d %v", status, b)
		}
		done <- b
	}()
	var id string
	for deadline := time.Now().Add(5 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		_, l := s.call(t, "GET", "/v1/questions?status=pending&session_id=sess-ü", agentKey, nil)
		if qs := l["questions"].([]any); len(qs) == 1 {
			id = qs[0].(map[string]any)["id"].(string)
		}
	}
	if id == "" {
		t.Fatal("question never listed")
	}
	cmd := func(text string) (int, map[string]any) {
		return s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"channel": "cli", "text": text})
	}
	if status, b := cmd("/answer " + id + " 7"); status != 400 || b["reply"] != "7 is not an option here: choose 1–3" {
		t.Fatalf("choice 7 of 3: %d %v", status, b)
	}
	if status, b := cmd("/answer " + id + " 1,2 other both"); status != 400 || b["reply"] != "this question takes one answer: choose one of 1–3" {
		t.Fatalf("two options and a note on one-answer question: %d %v", status, b)
	}
	if status, b := cmd("/answer zzzzzz 1"); status != 404 {
		t.Fatalf("unknown id: %d %v", status, b)
	}
	if status, b := cmd("/answer " + id + " 1"); status != 200 || b["reply"] != "Recorded: Postgres ✓" {
		t.Fatalf("answer: %d %v", status, b)
	}
	res := <-done
	if res["status"] != "answered" || res["session_id"] != "sess-ü" {
		t.Fatalf("result %v", res)
	}
	ans := res["answers"].(map[string]any)[unicode].(map[string]any)
	if ans["selected"].([]any)[0] != "Postgres ✓" {
		t.Fatalf("answers %v", res["answers"])
	}
	by := res["answered_by"].(map[string]any)
	if by["user"] != "anna" || by["name"] != "Anna" || by["channel"] != "cli" {
		t.Fatalf("answered_by %v", by)
	}
	qs := res["questions"].([]any)[0].(map[string]any)
	if qs["header"] != "DB 🚀" || qs["options"].([]any)[0].(map[string]any)["description"] != "größer" {
		t.Fatalf("unicode not kept: %v", qs)
	}
	status, b := cmd("/answer " + id + " 2")
	if e := b["question"].(map[string]any); status != 409 || e["status"] != "answered" || !strings.HasPrefix(b["reply"].(string), "Already answered by Anna at ") {
		t.Fatalf("closed: %d %v", status, b)
	}
	if status, b := s.call(t, "POST", "/v1/questions/"+id+"/cancel", agentKey, map[string]string{"reason": "x"}); status != 409 || b["error"].(map[string]any)["status"] != "answered" {
		t.Fatalf("cancel an answered question: %d %v", status, b)
	}
}

func TestSkipInDialogOverHTTP(t *testing.T) {
	s := newServer(t)
	_, b := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"wait": "0s", "questions": []any{
		map[string]any{"question": "First?"}, map[string]any{"question": "Second?", "options": []map[string]string{{"label": "A"}, {"label": "B"}}},
	}})
	id := b["id"].(string)
	cmd := func(text string) (int, map[string]any) {
		return s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"text": text})
	}
	if status, r := cmd("/answer " + id + ".1 skip"); status != 200 {
		t.Fatalf("skip in a dialog: %d %v", status, r)
	}
	if status, r := cmd("/answer " + id + ".2 B"); status != 200 || r["question"].(map[string]any)["status"] != "answered" {
		t.Fatalf("second: %d %v", status, r)
	}
}

func TestLongPollPendingCancelAndMetrics(t *testing.T) {
	s := newServer(t)
	status, b := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"question": "x", "wait": "0s", "session_id": "S"})
	if status != 202 || b["status"] != "pending" || b["expires_at"] == nil {
		t.Fatalf("pending ask: %d %v", status, b)
	}
	id := b["id"].(string)
	if status, b := s.call(t, "GET", "/v1/questions/"+id+"?wait=50ms", agentKey, nil); status != 200 || b["status"] != "pending" {
		t.Fatalf("long-poll timeout: %d %v", status, b)
	}
	if status, b := s.call(t, "GET", "/v1/questions/"+id+"?wait=soon", agentKey, nil); status != 400 {
		t.Fatalf("bad wait: %d %v", status, b)
	}
	if status, b := s.call(t, "GET", "/v1/questions?status=weird", agentKey, nil); status != 400 {
		t.Fatalf("bad status: %d %v", status, b)
	}
	got := make(chan map[string]any)
	go func() {
		_, b := s.call(t, "GET", "/v1/questions/"+id+"?wait=20s", agentKey, nil)
		got <- b
	}()
	time.Sleep(50 * time.Millisecond)
	status, b = s.call(t, "POST", "/v1/sessions/S/cancel", agentKey, map[string]string{"reason": "user left"})
	if status != 200 || len(b["cancelled"].([]any)) != 1 {
		t.Fatalf("session cancel: %d %v", status, b)
	}
	if r := <-got; r["status"] != "cancelled" || r["reason"] != "user left" {
		t.Fatalf("long-poll woke with %v", r)
	}
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"askbridge_questions_asked_total 1", `askbridge_questions_resolved_total{status="cancelled"} 1`, "askbridge_questions_pending 0", "askbridge_answer_latency_seconds_count 1"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if status, _ := s.call(t, "GET", p, "", nil); status != 200 {
			t.Errorf("%s: %d", p, status)
		}
	}
}

func TestDrainReleasesWaitersWith202(t *testing.T) {
	b := sqlitetest.NewBroker(t, sqlitetest.DefaultRoute(cli.Name, ""))
	b.Register(&cli.Channel{})
	srv := api.New(api.Config{Loopback: true}, b.Broker, b.Store)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	done := make(chan int)
	go func() {
		resp, err := http.Post(hs.URL+"/v1/questions", "application/json", strings.NewReader(`{"question":"x","wait":"60s"}`))
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	for b.Waiting() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	srv.Drain()
	if code := <-done; code != 202 {
		t.Fatalf("drained waiter got %d, want 202", code)
	}
}
