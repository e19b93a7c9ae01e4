package api_test

import (
	"testing"
)

func TestAuditOverHTTP(t *testing.T) {
	s := newServer(t)
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
	status, b := s.call(t, "GET", "/v1/questions/"+id+"/audit", agentKey, nil)
	if status != 200 || b["id"] != id {
		t.Fatalf("audit: %d %v", status, b)
	}
	entries := b["entries"].([]any)
	if len(entries) != 2 {
		t.Fatalf("audit entries = %v, want the refused snooze and the resolution", entries)
	}
	refused, resolved := entries[0].(map[string]any), entries[1].(map[string]any)
	by := resolved["by"].(map[string]any)
	if refused["kind"] != "refused" || resolved["kind"] != "resolved" || resolved["status"] != "answered" || by["channel"] != "cli" || by["user"] != "anna" || resolved["choice"] != "Allow" || resolved["at"] == "" {
		t.Fatalf("audit entries = %v", entries)
	}
	for _, tc := range []struct {
		name, path, key string
		want            int
	}{
		{"another agent's question", "/v1/questions/" + id + "/audit", otherKey, 404},
		{"an unknown question", "/v1/questions/zzzzzz/audit", agentKey, 404},
		{"no key", "/v1/questions/" + id + "/audit", "", 401},
	} {
		if status, b := s.call(t, "GET", tc.path, tc.key, nil); status != tc.want {
			t.Errorf("%s: %d %v, want %d", tc.name, status, b, tc.want)
		}
	}
}
