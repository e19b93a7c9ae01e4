package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// benchAskBody is a typical ask: one question with four options, a
// context, a session and tool call, a timeout and a default.
var benchAskBody = []byte(`{"question":"Which database should the service use in production?",` +
	`"options":[{"label":"SQLite","description":"one file, one writer"},{"label":"PostgreSQL","description":"a server to run"},` +
	`{"label":"Redis","description":"shared by every instance"},{"label":"None yet"}],` +
	`"context":"The service stores about 10k rows a day; the team runs one instance today and may run three.",` +
	`"session_id":"sess-7f3a","tool_call_id":"call_01HZX","timeout":"10m","default":"SQLite"}`)

// benchResult is the answer of a long-poll that returns an answered
// question.
func benchResult() broker.Result {
	at := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	done := at.Add(42 * time.Second)
	return broker.Result{
		ID: "q_01HZXABCDEF", Status: broker.StatusAnswered, SessionID: "sess-7f3a", ToolCallID: "call_01HZX",
		Questions: []broker.Prompt{{Question: "Which database should the service use in production?", Options: []broker.Option{
			{Label: "SQLite", Description: "one file, one writer"}, {Label: "PostgreSQL", Description: "a server to run"},
			{Label: "Redis", Description: "shared by every instance"}, {Label: "None yet"}}}},
		Answers: map[string]broker.Answer{"Which database should the service use in production?": {
			Selected: []string{"SQLite"}, AnsweredBy: &broker.Responder{Channel: "slack", User: "U123", Name: "ana"}}},
		AnsweredBy: &broker.Responder{Channel: "slack", User: "U123", Name: "ana"},
		Route:      "default", CreatedAt: at, ExpiresAt: at.Add(10 * time.Minute), ResolvedAt: &done,
	}
}

// BenchmarkJSONDecodeAsk is the API's decode of an ask body, as decode
// does it (unknown fields refused).
func BenchmarkJSONDecodeAsk(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		var req broker.AskRequest
		dec := json.NewDecoder(bytes.NewReader(benchAskBody))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJSONEncodeResult is the API's encode of an answered question,
// as writeJSON does it.
func BenchmarkJSONEncodeResult(b *testing.B) {
	r := benchResult()
	b.ReportAllocs()
	for range b.N {
		enc := json.NewEncoder(io.Discard)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			b.Fatal(err)
		}
	}
}

// discardWriter is a ResponseWriter that keeps nothing, for benchmarks of
// what a handler writes.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (d *discardWriter) WriteHeader(int)             {}

// benchCopies are the copies of benchResult: the web and text channels.
func benchCopies() []broker.Copy {
	at := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	return []broker.Copy{
		{Target: broker.Target{Channel: "cli"}, State: broker.CopyPosted, MessageID: "q_01HZXABCDEF", Attempts: 1, UpdatedAt: at, Edit: "done"},
		{Target: broker.Target{Channel: "web"}, State: broker.CopyPosted, MessageID: "q_01HZXABCDEF", Attempts: 1, UpdatedAt: at, Edit: "done"},
	}
}

// BenchmarkWriteQuestionView is the body of GET /v1/questions/{id} for an
// answered question, as the handler writes it.
func BenchmarkWriteQuestionView(b *testing.B) {
	v := questionView{Result: benchResult(), Copies: benchCopies()}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for range b.N {
		writeJSON(w, http.StatusOK, v)
	}
}

// BenchmarkWriteCommandResponse is the body of POST /v1/commands for a
// recorded answer, as the handler writes it.
func BenchmarkWriteCommandResponse(b *testing.B) {
	res := benchResult()
	out := CommandResponse{OK: true, Reply: "Recorded: SQLite", Question: &res}
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for range b.N {
		writeJSON(w, http.StatusOK, out)
	}
}
