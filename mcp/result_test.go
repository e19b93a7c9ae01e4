package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

func TestOutcomeText(t *testing.T) {
	exp := time.Date(2026, 5, 4, 14, 30, 0, 0, time.UTC)
	answers := map[string]client.Answer{"Which database?": {Selected: []string{"SQLite"}}}
	tests := []struct {
		name string
		r    client.Result
		want string
	}{
		{"answered", client.Result{Status: client.StatusAnswered, Answers: answers},
			"User answered your questions:\n{\n  \"Which database?\": {\n    \"selected\": [\n      \"SQLite\"\n    ],\n    \"custom_text\": \"\",\n    \"skipped\": false\n  }\n}"},
		{"declined with a reason", client.Result{Status: client.StatusDeclined, Reason: "not now."},
			"The user declined: not now. Do not ask again unless you must."},
		{"declined", client.Result{Status: client.StatusDeclined},
			"The user declined. Do not ask again unless you must."},
		{"discuss", client.Result{Status: client.StatusDeclined, NotReady: true, Reason: "what about backups"},
			"The user is not ready to answer and wants to discuss this first: what about backups. Talk it through in your reply, asking what they want to clarify, instead of asking the same question again."},
		{"timed out with defaults", client.Result{Status: client.StatusTimedOut, Fallback: "default", Answers: map[string]client.Answer{"Go?": {Selected: []string{"Yes"}, Defaulted: true}}},
			"Nobody answered in time, so the defaults were used:\n{\n  \"Go?\": {\n    \"selected\": [\n      \"Yes\"\n    ],\n    \"custom_text\": \"\",\n    \"skipped\": false,\n    \"defaulted\": true\n  }\n}"},
		{"timed out without", client.Result{Status: client.StatusTimedOut, Fallback: "none"},
			"Nobody answered in time and there was no default: there is no answer. Decide without it, or ask in your reply."},
		{"timed out, a person's answer kept and the rest defaulted", client.Result{Status: client.StatusTimedOut, Fallback: "default",
			Questions: []client.Prompt{{Question: "DB?"}, {Question: "Cache?"}},
			Answers: map[string]client.Answer{
				"DB?":    {Selected: []string{"SQLite"}, Defaulted: true},
				"Cache?": {Selected: []string{"Redis"}, AnsweredBy: &client.Responder{Channel: "web", User: "u1", Name: "ana"}},
			}},
			"Time ran out with 1 of 2 questions answered; the defaults were used for the rest. The answers (answered_by names who answered, defaulted marks a default):\n" +
				"{\n  \"Cache?\": {\n    \"selected\": [\n      \"Redis\"\n    ],\n    \"custom_text\": \"\",\n    \"skipped\": false,\n    \"answered_by\": {\n      \"channel\": \"web\",\n      \"user\": \"u1\",\n      \"name\": \"ana\"\n    }\n  },\n" +
				"  \"DB?\": {\n    \"selected\": [\n      \"SQLite\"\n    ],\n    \"custom_text\": \"\",\n    \"skipped\": false,\n    \"defaulted\": true\n  }\n}"},
		{"timed out, some defaults", client.Result{Status: client.StatusTimedOut, Fallback: "partial",
			Questions: []client.Prompt{{Question: "DB?"}, {Question: "Cache?"}, {Question: "Queue?"}},
			Answers: map[string]client.Answer{
				"DB?":    {Selected: []string{"SQLite"}, Defaulted: true},
				"Queue?": {Selected: []string{"NATS"}, AnsweredBy: &client.Responder{Channel: "web", User: "u1"}},
			}},
			"Time ran out with 1 of 3 questions answered; the defaults were used where there was one, and there is no answer to \"Cache?\". The answers (answered_by names who answered, defaulted marks a default):\n" +
				"{\n  \"DB?\": {\n    \"selected\": [\n      \"SQLite\"\n    ],\n    \"custom_text\": \"\",\n    \"skipped\": false,\n    \"defaulted\": true\n  },\n" +
				"  \"Queue?\": {\n    \"selected\": [\n      \"NATS\"\n    ],\n    \"custom_text\": \"\",\n    \"skipped\": false,\n    \"answered_by\": {\n      \"channel\": \"web\",\n      \"user\": \"u1\"\n    }\n  }\n}\n" +
				"Decide the unanswered questions without an answer, or ask about them in your reply."},
		{"timed out, nobody answered, one default", client.Result{Status: client.StatusTimedOut, Fallback: "partial",
			Questions: []client.Prompt{{Question: "DB?"}, {Question: "Cache?"}},
			Answers:   map[string]client.Answer{"DB?": {Selected: []string{"SQLite"}, Defaulted: true}}},
			"Nobody answered in time; the defaults were used where there was one, and there is no answer to \"Cache?\". The answers (answered_by names who answered, defaulted marks a default):\n" +
				"{\n  \"DB?\": {\n    \"selected\": [\n      \"SQLite\"\n    ],\n    \"custom_text\": \"\",\n    \"skipped\": false,\n    \"defaulted\": true\n  }\n}\n" +
				"Decide the unanswered questions without an answer, or ask about them in your reply."},
		{"timed out, one answered, no defaults", client.Result{Status: client.StatusTimedOut, Fallback: "none",
			Questions: []client.Prompt{{Question: "DB?"}, {Question: "Cache?"}},
			Answers:   map[string]client.Answer{"Cache?": {Skipped: true, Selected: []string{}, AnsweredBy: &client.Responder{Channel: "web", User: "u1"}}}},
			"Time ran out with 1 of 2 questions answered; there is no answer to \"DB?\". The answers (answered_by names who answered, defaulted marks a default):\n" +
				"{\n  \"Cache?\": {\n    \"selected\": [],\n    \"custom_text\": \"\",\n    \"skipped\": true,\n    \"answered_by\": {\n      \"channel\": \"web\",\n      \"user\": \"u1\"\n    }\n  }\n}\n" +
				"Decide the unanswered questions without an answer, or ask about them in your reply."},
		{"cancelled", client.Result{Status: client.StatusCancelled, Reason: CancelReason},
			"The question was cancelled: the agent's request was cancelled."},
		{"unsupported", client.Result{Status: client.StatusUnsupported, Reason: "no route named \"x\""},
			"No channel is configured to reach the user: ask in your reply instead."},
		{"pending", client.Result{ID: "k7m2qx", Status: client.StatusPending, ExpiresAt: exp},
			`Question k7m2qx is waiting for an answer (it times out at 2026-05-04 14:30:00 UTC). Call get_answer with id "k7m2qx" to collect the answer, or cancel_question to withdraw it.`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := outcomeText(&tc.r); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		args string
		want string // "" = no error
	}{
		{`{"questions":[{"question":"Go?","options":[{"label":"Yes"},{"label":"No"}],"default":"Yes"}],"wait":false}`, ""},
		{`{"questions":[{"question":"Go?","default":["A","B"]}]}`, ""},
		{``, ""},
		{`{"questions":"x"}`, "questions: must be a list of questions, got a string"},
		{`{"questions":[{"question":"Go?","other":"no"}]}`, "questions[0].other: must be true or false, got a string"},
		{`{"questions":[{"question":"Go?","default":3}]}`, "questions[0].default: must be a string or a list of strings"},
		{`{"wait":1}`, "wait: must be true or false, got the number 1"},
		{`{"questions":[],"color":1}`, `unknown field color`},
		{`[1]`, "the input must be a JSON object, got a list"},
		{`{} {}`, "the input must hold one JSON object and nothing after it"},
		{`{"questions":[`, "the input ends before its JSON is complete"},
	}
	for _, tc := range tests {
		t.Run(tc.args, func(t *testing.T) {
			var in AskInput
			err := decodeArgs(json.RawMessage(tc.args), &in)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want != "" && (err == nil || !contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestBridgeErrorNamesTheQuestion(t *testing.T) {
	tests := []struct {
		err     error
		prompts int
		want    string
	}{
		{&client.APIError{StatusCode: 400, Message: "header: at most 16 characters, got 17", Field: "header"}, 1, "questions[0].header: at most 16 characters, got 17"},
		{&client.APIError{StatusCode: 400, Message: "questions[1].header: at most 16 characters, got 17", Field: "questions[1].header"}, 2, "questions[1].header: at most 16 characters, got 17"},
		{&client.APIError{StatusCode: 400, Message: "timeout: must be between 10s and 7d, got 1s", Field: "timeout"}, 1, "timeout: must be between 10s and 7d, got 1s"},
		{&client.APIError{StatusCode: 401, Message: "missing or wrong agent key"}, 1, "the bridge refused the agent key: missing or wrong agent key"},
		{errors.New("dial tcp: connection refused"), 1, "the bridge could not be reached (is bridge serve running?)"},
		{&client.ConnError{Server: "http://127.0.0.1:8377", Err: syscall.ECONNREFUSED}, 1, "cannot reach the bridge at http://127.0.0.1:8377: nothing is listening there (is bridge serve running, and is ASKBRIDGE_SERVER right?)"},
	}
	for _, tc := range tests {
		if got := bridgeError(tc.err, tc.prompts).Error(); got != tc.want {
			t.Errorf("bridgeError(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestUnreachableBridge(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	s, err := New(Config{Asker: Fixed(client.New("http://"+addr, ""))})
	if err != nil {
		t.Fatal(err)
	}
	s.submitRetry = 300 * time.Millisecond
	args, _ := json.Marshal(map[string]any{"questions": []any{map[string]any{"question": "Go?"}}})
	res, err := s.askUser(context.Background(), &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: ToolAskUser, Arguments: args}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if !res.IsError || text != "cannot reach the bridge at http://"+addr+": nothing is listening there (is bridge serve running, and is ASKBRIDGE_SERVER right?)" {
		t.Fatalf("result: %+v", res.Content[0])
	}
}
