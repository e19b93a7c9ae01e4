package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
)

// TestAskUserFieldSchema checks that ask_user's input schema offers a
// question's field with the names of MCP elicitation's requested schema.
func TestAskUserFieldSchema(t *testing.T) {
	cs := connect(t, newServer(t, startBridge(t)))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != "ask_user" {
			continue
		}
		schema, _ := json.Marshal(tl.InputSchema)
		for _, want := range []string{`"field":{`, `"minLength":{"description":"a string's fewest characters","type":"integer"}`, `"oneOf":{`, `"anyOf":{`, `"minItems":{"description":"the fewest choices of an array","type":"integer"}`,
			`"enum":["email","uri","date","date-time"]`, `"enum":["string","number","integer","boolean","array"]`} {
			if !strings.Contains(string(schema), want) {
				t.Errorf("ask_user input schema lacks %s: %s", want, schema)
			}
		}
		out, _ := json.Marshal(tl.OutputSchema)
		if !strings.Contains(string(out), `"value":true`) && !strings.Contains(string(out), `"value":{}`) {
			t.Errorf("the output schema does not take any JSON as an answer's value: %s", out)
		}
		return
	}
	t.Fatal("ask_user is not listed")
}

// TestAskUserTypedFields asks a dialog of elicitation-style fields; the
// person gives a port out of range, which is refused, then answers each,
// and the result carries the values typed, in the text and the
// structured content.
func TestAskUserTypedFields(t *testing.T) {
	br := startBridge(t)
	cs := connect(t, newServer(t, br))
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []any{
				map[string]any{"question": "Which port should the service listen on?", "field": map[string]any{
					"name": "port", "type": "integer", "title": "Port", "minimum": 1024, "maximum": 65535, "default": 8080}},
				map[string]any{"question": "Which level?", "field": map[string]any{
					"type": "string", "oneOf": []any{map[string]any{"const": "lo", "title": "Low"}, map[string]any{"const": "hi", "title": "High"}}}},
				map[string]any{"question": "Which regions?", "field": map[string]any{
					"type": "array", "maxItems": 2, "items": map[string]any{"anyOf": []any{
						map[string]any{"const": "eu", "title": "Europe"}, map[string]any{"const": "us", "title": "Americas"}, map[string]any{"const": "ap", "title": "Asia"}}}}},
				map[string]any{"question": "Deploy now?", "field": map[string]any{"type": "boolean"}},
			},
		}})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	if !br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) > 0 }) {
		t.Fatal("no question was posted")
	}
	id := br.ch.Posts()[0].ID
	say := func(text string) broker.Reply {
		return br.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana", Text: text})
	}
	if r := say("/answer " + id + ".1 99999"); r.OK || r.Text != "Port must be a whole number from 1024 to 65535; nothing was recorded." {
		t.Fatalf("out of range: %+v", r)
	}
	for _, cmd := range []string{".1 8080", ".2 High", ".3 eu,ap", ".4 no"} {
		if r := say("/answer " + id + cmd); !r.OK {
			t.Fatalf("%s refused: %s", cmd, r.Text)
		}
	}
	res := <-done
	if res == nil || res.IsError {
		t.Fatalf("call failed: %s", textOf(res))
	}
	for _, want := range []string{`"value": 8080`, `"value": "hi"`, `"value": [`, `"ap"`, `"value": false`} {
		if !strings.Contains(textOf(res), want) {
			t.Errorf("the text lacks %s:\n%s", want, textOf(res))
		}
	}
	answers := structured(t, res)["answers"].(map[string]any)
	if v := answers["Which port should the service listen on?"].(map[string]any)["value"]; v != float64(8080) {
		t.Errorf("structured port value %#v, want the number 8080", v)
	}
	if v := answers["Deploy now?"].(map[string]any)["value"]; v != false {
		t.Errorf("structured boolean value %#v, want false", v)
	}
}

// TestAskUserBadField checks that a bad field is a tool error naming the
// key as ask_user spells it, and asks nothing.
func TestAskUserBadField(t *testing.T) {
	br := startBridge(t)
	cs := connect(t, newServer(t, br))
	for _, tc := range []struct {
		field map[string]any
		want  string
	}{
		{map[string]any{"type": "string", "minItems": 1}, "questions[0].field.minItems: only a multi_enum field takes minItems"},
		{map[string]any{"type": "string", "minLength": 9, "maxLength": 3}, "questions[0].field.minLength: 9 is more than maxLength, 3"},
		{map[string]any{"type": "date"}, `questions[0].field.type: must be one of string, number, integer, boolean, enum, multi_enum; got "date"`},
		{map[string]any{"type": "integer", "default": "soon"}, `questions[0].field.default: must be a whole number; got "soon"`},
		{map[string]any{"type": "string", "enum": []any{"a"}}, "questions[0].field.choices: give 2–4 choices, got 1"},
	} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []any{map[string]any{"question": "Which value?", "field": tc.field}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.Contains(textOf(res), tc.want) {
			t.Errorf("field %v: %s, want an error with %q", tc.field, textOf(res), tc.want)
		}
	}
	if n := len(br.ch.Posts()); n != 0 {
		t.Fatalf("bad fields posted %d questions", n)
	}
}
