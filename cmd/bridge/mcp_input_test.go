package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// TestMCPBadInput shows that every mistake in ask_user's arguments comes
// back as a tool error naming the problem, and that nothing is asked.
func TestMCPBadInput(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	conn := startMCPStdio(t, addr)
	api := client.New("http://"+addr, "")

	five := []map[string]any{}
	for _, q := range []string{"One?", "Two?", "Three?", "Four?", "Five?"} {
		five = append(five, prompt(q, "Yes", "No"))
	}
	longHeader := prompt("Which database?", "Postgres", "SQLite")
	longHeader["header"] = "Database engines!" // 17 characters
	tests := []struct {
		name string
		args any
		want string
	}{
		{"no questions", askArgs(), "questions: at least one question is required"},
		{"five questions", map[string]any{"questions": five}, "questions: at most 4 questions per dialog, got 5"},
		{"17-character header", askArgs(longHeader), "questions[0].header: at most 16 characters, got 17"},
		{"header of the second question", askArgs(prompt("Which region?", "EU", "US"), longHeader), "questions[1].header: at most 16 characters, got 17"},
		{"one option", askArgs(prompt("Proceed?", "Yes")), "questions[0].options: give no options (free text) or 2–4 options, got 1"},
		{"an Other option", askArgs(prompt("Which editor?", "Vim", "Other")), `questions[0].options[1].label: do not add an "Other" option`},
		{"questions is not an array", map[string]any{"questions": "Which database?"}, "questions: must be a list of questions, got a string"},
		{"a number for the question", map[string]any{"questions": []any{map[string]any{"question": 42}}}, "questions[0].question: must be a string, got the number 42"},
		{"a number for the timeout", map[string]any{"questions": []any{prompt("Now?", "Yes", "No")}, "timeout": 30}, "timeout: must be a string, got the number 30"},
		{"a bad timeout", map[string]any{"questions": []any{prompt("Now?", "Yes", "No")}, "timeout": "soon"}, `"soon" is not a duration`},
		{"an unknown field", map[string]any{"questions": []any{prompt("Now?", "Yes", "No")}, "colour": "red"}, `unknown field colour`},
		{"no arguments", nil, "questions: at least one question is required"},
		{"arguments that are not an object", json.RawMessage(`["Which database?"]`), "the input must be a JSON object, got a list"},
	}
	before := len(listQuestions(t, api))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, err := conn.cs.CallTool(ctx, toolParams("ask_user", tc.args))
			if err != nil {
				if strings.Contains(err.Error(), tc.want) {
					return // refused by the protocol layer, naming the problem
				}
				t.Fatalf("call: %v", err)
			}
			if !res.IsError {
				t.Fatalf("not a tool error: %s", text(res))
			}
			if !strings.Contains(text(res), tc.want) {
				t.Fatalf("error %q does not say %q", text(res), tc.want)
			}
		})
	}
	if after := listQuestions(t, api); len(after) != before {
		t.Fatalf("%d questions were asked by bad calls", len(after)-before)
	}
}
