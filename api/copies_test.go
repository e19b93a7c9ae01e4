package api_test

import (
	"testing"
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
