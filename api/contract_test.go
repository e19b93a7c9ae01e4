package api_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/timeouts"
)

func jsonOf(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

var anna = `{"channel":"cli","user":"anna","name":"Anna"}`

// TestSkipOneQuestionOverHTTP checks that skip answers a single question
// with skipped: true and the person, unlike a decline.
func TestSkipOneQuestionOverHTTP(t *testing.T) {
	tests := []struct {
		name, command, reply, status, answers string
	}{
		{"skip", "/answer %s skip", "Recorded: skipped", "answered",
			`{"Deploy now?":{"selected":[],"custom_text":"","skipped":true,"answered_by":` + anna + `}}`},
		{"decline", "/decline %s", "Recorded: declined.", "declined", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			_, b := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"wait": "0s", "question": "Deploy now?",
				"options": []map[string]string{{"label": "Yes"}, {"label": "No"}}})
			id := b["id"].(string)
			status, r := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"text": strings.ReplaceAll(tt.command, "%s", id)})
			if status != 200 || r["reply"] != tt.reply {
				t.Fatalf("command: %d %v, want 200 %q", status, r, tt.reply)
			}
			_, res := s.call(t, "GET", "/v1/questions/"+id, agentKey, nil)
			if res["status"] != tt.status || !reflect.DeepEqual(res["answers"], jsonOf(t, tt.answers)) || !reflect.DeepEqual(res["answered_by"], jsonOf(t, anna)) {
				t.Errorf("result %v, want %s with answers %s by Anna", res, tt.status, tt.answers)
			}
		})
	}
}

// TestTimedOutDialogOverHTTP checks the result an agent reads of a dialog
// that timed out after a person answered part of it.
func TestTimedOutDialogOverHTTP(t *testing.T) {
	opts := func(labels ...string) []map[string]string {
		var out []map[string]string
		for _, l := range labels {
			out = append(out, map[string]string{"label": l})
		}
		return out
	}
	tests := []struct {
		name         string
		cacheDefault any
		fallback     string
		answers      string
	}{
		{"a prompt without a default", nil, "partial",
			`{"Which database?":{"selected":["SQLite"],"custom_text":"","skipped":false,"defaulted":true},
			  "Which queue?":{"selected":["NATS"],"custom_text":"","skipped":false,"answered_by":` + anna + `}}`},
		{"every unanswered prompt has a default", "NONE", "default",
			`{"Which database?":{"selected":["SQLite"],"custom_text":"","skipped":false,"defaulted":true},
			  "Which cache?":{"selected":["None"],"custom_text":"","skipped":false,"defaulted":true},
			  "Which queue?":{"selected":["NATS"],"custom_text":"","skipped":false,"answered_by":` + anna + `}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			cache := map[string]any{"question": "Which cache?", "header": "Cache", "options": opts("Redis", "None")}
			if tt.cacheDefault != nil {
				cache["default"] = tt.cacheDefault
			}
			_, b := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"wait": "0s", "timeout": "10m", "questions": []any{
				map[string]any{"question": "Which database?", "header": "DB", "default": "sqlite", "options": opts("Postgres", "SQLite")},
				cache,
				map[string]any{"question": "Which queue?", "header": "Queue", "options": opts("Kafka", "NATS")},
			}})
			id := b["id"].(string)
			if status, r := s.call(t, "POST", "/v1/commands", annaKey, map[string]any{"text": "/answer " + id + ".3 nats"}); status != 200 {
				t.Fatalf("answer: %d %v", status, r)
			}
			// A long-poll is open when the deadline passes.
			polled := make(chan map[string]any, 1)
			go func() {
				_, res := s.call(t, "GET", "/v1/questions/"+id+"?wait=20s", agentKey, nil)
				polled <- res
			}()
			sweeper := timeouts.New(s.b, s.st, timeouts.Options{})
			if st, err := sweeper.Sweep(context.Background(), time.Now().Add(11*time.Minute)); err != nil || st.TimedOut != 1 {
				t.Fatalf("sweep after the deadline: %+v %v", st, err)
			}
			var res map[string]any
			select {
			case res = <-polled:
			case <-time.After(15 * time.Second):
				t.Fatal("the long-poll was not woken by the timeout")
			}
			if res["status"] != "timed_out" || res["fallback"] != tt.fallback {
				t.Errorf("status %v fallback %v, want timed_out %s", res["status"], res["fallback"], tt.fallback)
			}
			if !reflect.DeepEqual(res["answers"], jsonOf(t, tt.answers)) {
				t.Errorf("answers %v\nwant %s", res["answers"], tt.answers)
			}
			if _, ok := res["answered_by"]; ok {
				t.Errorf("a timeout names someone as answering: %v", res["answered_by"])
			}
			if d := res["questions"].([]any)[0].(map[string]any)["default"]; !reflect.DeepEqual(d, []any{"SQLite"}) {
				t.Errorf("the default reads %v, want the option's label [SQLite]", d)
			}
			_, listed := s.call(t, "GET", "/v1/questions?status=timed_out", agentKey, nil)
			if qs := listed["questions"].([]any); len(qs) != 1 || !reflect.DeepEqual(qs[0].(map[string]any)["answers"], res["answers"]) {
				t.Errorf("the list shows %v, want the same answers", listed)
			}
		})
	}
}
