package api_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// GET /v1/questions/{id} lists each copy of the question with its target
// and state; an unknown question is still 404.
func TestQuestionListsItsCopies(t *testing.T) {
	s := newServer(t)
	status, q := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{
		"question": "Ship it?", "options": []map[string]string{{"label": "Yes"}, {"label": "No"}}, "wait": 0,
	})
	if status != 202 {
		t.Fatalf("ask: %d %v, want 202 (pending)", status, q)
	}
	id := q["id"].(string)
	status, got := s.call(t, "GET", "/v1/questions/"+id, agentKey, nil)
	if status != 200 {
		t.Fatalf("get: %d %v", status, got)
	}
	copies, ok := got["copies"].([]any)
	if !ok || len(copies) != 1 {
		t.Fatalf("copies = %v, want one (the route's single target)", got["copies"])
	}
	c := copies[0].(map[string]any)
	target, _ := c["target"].(map[string]any)
	if target["channel"] != "cli" || c["state"] != "posted" || c["attempts"] != float64(1) {
		t.Fatalf("copy = %v, want the cli copy posted after one attempt", c)
	}
	if _, has := c["error_class"]; has {
		t.Fatalf("copy = %v: a posted copy has no error class", c)
	}
	if status, _ := s.call(t, "GET", "/v1/questions/zzzzzz", agentKey, nil); status != 404 {
		t.Fatalf("unknown question: %d, want 404", status)
	}
	if status, _ := s.call(t, "GET", "/v1/questions/"+id, otherKey, nil); status != 404 {
		t.Fatalf("another agent's question: %d, want 404", status)
	}
}

// The metrics show the platform work not finished yet, per channel.
func TestOutboxMetrics(t *testing.T) {
	s := newServer(t)
	s.metrics.WatchOutbox(s.st)
	q := brokertest.NewQuestion(broker.NewID(), "claude", time.Now().Add(-time.Minute))
	q.Targets = []broker.Target{{Channel: "slack", Chat: "C1"}, {Channel: "slack", Chat: "C2"}}
	if _, _, err := s.st.Create(context.Background(), q, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `askbridge_outbox_depth{channel="slack"} 2`) {
		t.Fatalf("metrics lack the slack outbox depth of 2:\n%s", body)
	}
	m := regexp.MustCompile(`askbridge_outbox_oldest_seconds\{channel="slack"\} ([0-9.e+]+)`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("metrics lack the age of the slack outbox:\n%s", body)
	}
	if age, _ := strconv.ParseFloat(string(m[1]), 64); age < 59 {
		t.Fatalf("oldest slack work is %vs old, want at least a minute", age)
	}
}
