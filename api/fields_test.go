package api_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAskTypedFieldBadInput checks that a bad field is a 400 naming its
// key, and stores nothing.
func TestAskTypedFieldBadInput(t *testing.T) {
	s := newServer(t)
	tests := []struct {
		name  string
		body  string
		field string
		msg   string
	}{
		{"unknown type", `{"question":"Port?","field":{"type":"port"}}`, "field.type", `must be one of string, number, integer, boolean, enum, multi_enum; got "port"`},
		{"min over max", `{"questions":[{"question":"Port?","field":{"type":"integer","minimum":9,"maximum":1}}]}`, "field.minimum", "9 is more than maximum, 1"},
		{"default breaks its rule", `{"question":"Port?","field":{"type":"integer","title":"Port","minimum":1024,"default":80}}`, "field.default", "must be a whole number of at least 1024; got 80"},
		{"bad format", `{"question":"When?","field":{"type":"string","format":"time"}}`, "field.format", "must be one of email, uri, date, date-time"},
		{"duplicate choices", `{"question":"Level?","field":{"type":"enum","choices":[{"value":"a"},{"value":"a"}]}}`, "field.choices[1].value", `duplicate value "a"`},
		{"min_items over choices", `{"question":"Regions?","field":{"type":"multi_enum","choices":[{"value":"eu"},{"value":"us"}],"min_items":3}}`, "field.min_items", "must be 0 to the number of choices, 2; got 3"},
		{"unknown key", `{"question":"Port?","field":{"type":"integer","min":1}}`, "field.min", "unknown field"},
		{"wrong JSON type", `{"question":"Port?","field":{"type":"integer","minimum":"1"}}`, "field.minimum", "must be a number"},
		{"options beside a field", `{"question":"Port?","options":[{"label":"A"},{"label":"B"}],"field":{"type":"boolean"}}`, "options", "takes no options"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := s.call(t, "POST", "/v1/questions", agentKey, tc.body)
			field, msg := errField(body)
			if status != 400 || field != tc.field || !strings.Contains(msg, tc.msg) {
				t.Fatalf("got %d %s: %q; want 400 %s: …%s…", status, field, msg, tc.field, tc.msg)
			}
			if n := s.count(t); n != 0 {
				t.Fatalf("bad input stored %d question(s)", n)
			}
		})
	}
}

// TestTypedAnswerOverHTTP asks a typed dialog, answers a value out of
// range (refused, 400, nothing recorded), then the right values, and
// reads the result with the values typed in its JSON.
func TestTypedAnswerOverHTTP(t *testing.T) {
	s := newServer(t)
	status, b := s.call(t, "POST", "/v1/questions", agentKey, `{"wait":"0s","questions":[
		{"question":"Which port?","field":{"name":"port","type":"integer","title":"Port","minimum":1024,"maximum":65535,"default":8080}},
		{"question":"Deploy now?","field":{"name":"now","type":"boolean"}}]}`)
	if status != 202 {
		t.Fatalf("ask: %d %v", status, b)
	}
	id := b["id"].(string)
	cmd := func(text string) (int, map[string]any) {
		return s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"channel": "cli", "text": text})
	}
	if status, r := cmd("/answer " + id + ".1 80"); status != 400 || r["reply"] != "Port must be a whole number from 1024 to 65535; nothing was recorded." {
		t.Fatalf("out of range: %d %v", status, r)
	}
	if status, r := cmd("/answer " + id + ".1 8080"); status != 200 {
		t.Fatalf("in range: %d %v", status, r)
	}
	if status, r := cmd("/answer " + id + ".2 yes"); status != 200 {
		t.Fatalf("yes: %d %v", status, r)
	}
	req, _ := http.NewRequest("GET", s.URL+"/v1/questions/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+agentKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var res struct {
		Status    string `json:"status"`
		Questions []struct {
			Field struct {
				Default json.RawMessage `json:"default"`
			} `json:"field"`
		} `json:"questions"`
		Answers map[string]struct {
			Value json.RawMessage `json:"value"`
		} `json:"answers"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.Status != "answered" || string(res.Answers["Which port?"].Value) != "8080" || string(res.Answers["Deploy now?"].Value) != "true" {
		t.Fatalf("result %s: want answered with 8080 and true as JSON values", raw)
	}
	if string(res.Questions[0].Field.Default) != "8080" {
		t.Errorf("the field's default reads %s, want 8080", res.Questions[0].Field.Default)
	}
}
