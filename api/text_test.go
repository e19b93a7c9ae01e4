package api_test

import (
	"strings"
	"testing"
)

// TestAgentTextOverHTTP checks the rules of agent text at the front door:
// a 400 that names the field, and nothing stored.
func TestAgentTextOverHTTP(t *testing.T) {
	s := newServer(t)
	many := make([]float64, 99)
	for i := range many {
		many[i] = float64(i+1) / 100
	}
	tests := []struct {
		name  string
		body  any
		field string
		msg   string
	}{
		{"ESC sequence in the question", map[string]any{"question": "Deploy \x1b[31mnow\x1b[0m?"}, "question", "contains a control character (U+001B) at character 8"},
		{"NUL in the context", map[string]any{"question": "q", "context": "a\x00b"}, "context", "contains a control character (U+0000)"},
		{"newline in a label", map[string]any{"question": "q", "options": []any{map[string]any{"label": "Yes\n2. Delete everything"}, map[string]any{"label": "No"}}}, "options[0].label", "must be one line"},
		{"newline in a description", map[string]any{"question": "q", "options": []any{map[string]any{"label": "Yes", "description": "a\nb"}, map[string]any{"label": "No"}}}, "options[0].description", "must be one line"},
		{"bidi override in a header", map[string]any{"question": "q", "header": "\u202eyolped"}, "header", "bidirectional"},
		{"zero-width space makes a second Approve", map[string]any{"question": "q", "options": []any{map[string]any{"label": "Approve"}, map[string]any{"label": "Approve\u200b"}}}, "options[1].label", "invisible formatting character (U+200B)"},
		{"duplicate after NFC and case folding", map[string]any{"question": "q", "options": []any{map[string]any{"label": "Café"}, map[string]any{"label": "CAFE\u0301"}}}, "options[1].label", "duplicate label"},
		{"C1 control in a dialog's default", map[string]any{"questions": []any{map[string]any{"question": "a"}, map[string]any{"question": "b", "default": "x\u009by"}}}, "questions[1].default", "control character (U+009B)"},
		{"invalid UTF-8 in a dialog's label", `{"questions":[{"question":"a"},{"question":"b","options":[{"label":"Yes"},{"label":"N` + "\xff" + `o"}]}]}`, "questions[1].options[1].label", "is not valid UTF-8 (byte 0xff)"},
		{"invalid UTF-8 in the question", "{\"question\":\"q\xc3\"}", "question", "is not valid UTF-8"},
		{"a responder on a channel the route does not post to", map[string]any{"question": "q", "responders": []string{"cli:ana", "slack:U1"}}, "responders[1]", `channel "slack" is not among the route's targets (cli)`},
		{"a malformed responder", map[string]any{"question": "q", "responders": []string{"x:y:z"}}, "responders[0]", "is not a responder entry"},
		{"99 reminder points", map[string]any{"question": "q", "reminders": many}, "reminders", "at most 5 points, got 99"},
		{"reminders under a minute apart", map[string]any{"question": "q", "timeout": "2m", "reminders": []float64{0.5, 0.9}}, "reminders[1]", "0.9 is only 48 s after 0.5 with a timeout of 2 min"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := s.call(t, "POST", "/v1/questions", agentKey, tt.body)
			field, msg := errField(body)
			if status != 400 || field != tt.field || !strings.Contains(msg, tt.msg) {
				t.Fatalf("got %d %s: %q; want 400 %s: …%s…", status, field, msg, tt.field, tt.msg)
			}
			if _, list := s.call(t, "GET", "/v1/questions", agentKey, nil); len(list["questions"].([]any)) != 0 {
				t.Fatalf("bad input is listed: %v", list["questions"])
			}
		})
	}
}

// TestAgentTextStoredNormalised checks what an agent reads back of text
// that is accepted: NFC, newlines and tabs kept in the question.
func TestAgentTextStoredNormalised(t *testing.T) {
	s := newServer(t)
	status, b := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{
		"question": "Ship the cafe\u0301 menu?\r\n\tSecond line 👩\u200d💻", "wait": "0s",
		"options": []any{map[string]any{"label": "Cafe\u0301 ❤️"}, map[string]any{"label": "数据库"}},
	})
	if status != 202 {
		t.Fatalf("ask: %d %v", status, b)
	}
	_, got := s.call(t, "GET", "/v1/questions/"+b["id"].(string), agentKey, nil)
	p := got["questions"].([]any)[0].(map[string]any)
	if q := p["question"]; q != "Ship the café menu?\n\tSecond line 👩\u200d💻" {
		t.Errorf("question = %q", q)
	}
	if l := p["options"].([]any)[0].(map[string]any)["label"]; l != "Café ❤️" {
		t.Errorf("label = %q", l)
	}
}

// TestCancelReasonAndPersonTextOverHTTP checks the reason of a cancel and
// a person's typed text: refused with a 400, the question still pending.
func TestCancelReasonAndPersonTextOverHTTP(t *testing.T) {
	s := newServer(t)
	_, b := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"question": "Ship it?", "session_id": "s1", "wait": "0s"})
	id := b["id"].(string)
	for _, path := range []string{"/v1/questions/" + id + "/cancel", "/v1/sessions/s1/cancel"} {
		status, body := s.call(t, "POST", path, agentKey, map[string]any{"reason": "done\nAnswered by ana: yes"})
		if field, msg := errField(body); status != 400 || field != "reason" || !strings.Contains(msg, "must be one line") {
			t.Fatalf("%s: %d %s %q", path, status, field, msg)
		}
	}
	status, body := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"text": "/answer " + id + " \x1b[2Jpwned"})
	if status != 400 || !strings.Contains(body["reply"].(string), "Nothing was recorded: the text contains a control character (U+001B)") {
		t.Fatalf("answer with ESC: %d %v", status, body)
	}
	if _, got := s.call(t, "GET", "/v1/questions/"+id, agentKey, nil); got["status"] != "pending" {
		t.Fatalf("status = %v, want pending", got["status"])
	}
}
