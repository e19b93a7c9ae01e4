package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/client"
)

func TestToolsListedWithSchemas(t *testing.T) {
	cs := connect(t, newServer(t, startBridge(t)))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	for _, name := range []string{"ask_user", "get_answer", "cancel_question"} {
		if tools[name] == nil {
			t.Fatalf("tool %s is not listed", name)
		}
	}
	ask := tools["ask_user"]
	for _, want := range []string{"ONE call with every question", `Do not add an "Other" option`, `" (Recommended)"`, "1 to 5 words"} {
		if !strings.Contains(ask.Description, want) {
			t.Errorf("ask_user description lacks %q", want)
		}
	}
	schema, _ := json.Marshal(ask.InputSchema)
	for _, want := range []string{`"maxItems":4`, `"maxLength":16`, `"minItems":2`, `"enum":["end_turn","new_session"]`, `"required":["questions"]`, `"multi_select"`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("ask_user input schema lacks %s: %s", want, schema)
		}
	}
}

// TestDrainLeavesQuestionOpen: a bridge shutting down releases waiting
// calls with the question's id, and the question stays pending.
func TestDrainLeavesQuestionOpen(t *testing.T) {
	br := startBridge(t)
	s := newServer(t, br)
	cs := connect(t, s)
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []any{map[string]any{"question": "Which port?", "options": []any{map[string]any{"label": "Port 8080"}, map[string]any{"label": "Port 9090"}}}},
		}})
		if err != nil {
			res = &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	if !br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) == 1 }) {
		t.Fatal("the question was not posted")
	}
	id := br.ch.Posts()[0].ID
	time.Sleep(200 * time.Millisecond) // the call is now waiting
	s.Drain()
	var res *sdk.CallToolResult
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting call was not released by Drain")
	}
	want := "The bridge is restarting. Question " + id + " is waiting for an answer"
	if res.IsError || !strings.HasPrefix(textOf(res), want) || !strings.Contains(textOf(res), `Call get_answer with id "`+id+`"`) {
		t.Fatalf("released call: %s", textOf(res))
	}
	q, err := br.api.Get(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Status != client.StatusPending {
		t.Fatalf("question is %s after a drain, want pending", q.Status)
	}
}

// TestAnswerCarriesActions: an option's action and prefill come back
// with the answer.
func TestAnswerCarriesActions(t *testing.T) {
	br := startBridge(t)
	cs := connect(t, newServer(t, br))
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []any{map[string]any{"question": "What next?", "header": "Next step", "options": []any{
				map[string]any{"label": "Stop here", "action": "end_turn"},
				map[string]any{"label": "Fresh start", "action": "new_session", "prefill": "Plan the v2 schema"},
			}}},
		}})
		done <- res
	}()
	br.answer(t, func(id string) string { return "/answer " + id + " 2" })
	res := <-done
	if res == nil || res.IsError {
		t.Fatalf("call failed: %v", res)
	}
	for _, want := range []string{`"selected": [`, `"Fresh start"`, `"action": "new_session"`, `"prefill": "Plan the v2 schema"`} {
		if !strings.Contains(textOf(res), want) {
			t.Errorf("result lacks %s:\n%s", want, textOf(res))
		}
	}
}

// TestReusedTokenForAnotherQuestion: a progress token used again for a
// different question asks it, instead of failing on the first one's key.
func TestReusedTokenForAnotherQuestion(t *testing.T) {
	br := startBridge(t)
	cs := connect(t, newServer(t, br))
	ids := map[string]bool{}
	for _, q := range []string{"Which port?", "Which host?", "Which port?"} {
		p := &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"wait":      false,
			"questions": []any{map[string]any{"question": q, "options": []any{map[string]any{"label": "First"}, map[string]any{"label": "Second"}}}},
		}}
		p.SetProgressToken("same-token")
		res, err := cs.CallTool(context.Background(), p)
		if err != nil || res.IsError {
			t.Fatalf("ask %q: %v %s", q, err, textOf(res))
		}
		var o struct{ ID string }
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &o)
		ids[o.ID] = true
	}
	if len(ids) != 2 {
		t.Fatalf("%d questions for two distinct questions under one token (the repeat re-attaches), want 2: %v", len(ids), ids)
	}
}
