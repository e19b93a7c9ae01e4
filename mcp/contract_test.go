package mcp_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/timeouts"
)

// structured returns the structured content of res as generic JSON.
func structured(t *testing.T, res *sdk.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// asJSON is v marshalled and decoded again, to compare with structured.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAnsweredByIsTheAPIObject checks that structured content names the
// answerer with the same object the HTTP API returns, and each answer
// with its own answerer.
func TestAnsweredByIsTheAPIObject(t *testing.T) {
	br := startBridge(t)
	cs := connect(t, newServer(t, br))
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []any{map[string]any{"question": "Deploy now?", "options": []any{map[string]any{"label": "Yes"}, map[string]any{"label": "No"}}}},
		}})
		done <- res
	}()
	id := br.answer(t, func(id string) string { return "/answer " + id + " skip" })
	res := <-done
	if res == nil || res.IsError {
		t.Fatalf("call failed: %v", res)
	}
	api, err := br.api.Get(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := structured(t, res)
	want := map[string]any{"channel": "room", "user": "u1", "name": "ana"}
	if !reflect.DeepEqual(got["answered_by"], want) || !reflect.DeepEqual(got["answered_by"], asJSON(t, api.AnsweredBy)) {
		t.Errorf("structured answered_by %v, want %v, as the API's %v", got["answered_by"], want, asJSON(t, api.AnsweredBy))
	}
	if !reflect.DeepEqual(got["answers"], asJSON(t, api.Answers)) {
		t.Errorf("structured answers %v, want the API's %v", got["answers"], asJSON(t, api.Answers))
	}
	a := got["answers"].(map[string]any)["Deploy now?"].(map[string]any)
	if a["skipped"] != true || !reflect.DeepEqual(a["answered_by"], want) || got["status"] != "answered" {
		t.Errorf("a skip is answered with skipped true by ana: %v", got)
	}
}

// TestTimedOutDialogKeepsAnswers checks what the model gets when a dialog
// times out after people answered part of it: their answers with who
// gave them, the defaults of the rest, and which have no answer.
func TestTimedOutDialogKeepsAnswers(t *testing.T) {
	br := startBridge(t)
	cs := connect(t, newServer(t, br))
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"timeout": "10m",
			"questions": []any{
				map[string]any{"question": "Which database?", "header": "DB", "default": "sqlite", "options": []any{map[string]any{"label": "Postgres"}, map[string]any{"label": "SQLite"}}},
				map[string]any{"question": "Which cache?", "header": "Cache", "options": []any{map[string]any{"label": "Redis"}, map[string]any{"label": "None"}}},
				map[string]any{"question": "Which queue?", "header": "Queue", "options": []any{map[string]any{"label": "Kafka"}, map[string]any{"label": "NATS"}}},
			},
		}})
		done <- res
	}()
	id := br.answer(t, func(id string) string { return "/answer " + id + ".3 NATS" })
	q, err := br.st.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := timeouts.New(br.b, br.st, timeouts.Options{}).Sweep(context.Background(), q.ExpiresAt); err != nil || st.TimedOut != 1 {
		t.Fatalf("sweep at the deadline: %+v, %v", st, err)
	}
	var res *sdk.CallToolResult
	select {
	case res = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("the waiting call did not end at the timeout")
	}
	if res == nil || res.IsError {
		t.Fatalf("call failed: %v", res)
	}
	got := structured(t, res)
	if got["status"] != string(broker.StatusTimedOut) || got["fallback"] != "partial" {
		t.Errorf("status %v fallback %v, want timed_out partial", got["status"], got["fallback"])
	}
	if _, ok := got["answered_by"]; ok {
		t.Errorf("a timeout names someone as answering: %v", got["answered_by"])
	}
	wantAnswers := map[string]any{
		"Which database?": map[string]any{"selected": []any{"SQLite"}, "custom_text": "", "skipped": false, "defaulted": true},
		"Which queue?":    map[string]any{"selected": []any{"NATS"}, "custom_text": "", "skipped": false, "answered_by": map[string]any{"channel": "room", "user": "u1", "name": "ana"}},
	}
	if !reflect.DeepEqual(got["answers"], wantAnswers) {
		t.Errorf("answers %v, want %v", got["answers"], wantAnswers)
	}
	text := textOf(res)
	for _, want := range []string{
		`Time ran out with 1 of 3 questions answered; the defaults were used where there was one, and there is no answer to "Which cache?".`,
		`"name": "ana"`, `"defaulted": true`,
		"Decide the unanswered questions without an answer",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text lacks %q:\n%s", want, text)
		}
	}
}
