package timeouts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestTimeoutFallback checks what the agent and the people see when a
// question times out: what people answered, with who answered it; the
// defaults of the other prompts, marked as such; and explicitly nothing
// where there is neither.
func TestTimeoutFallback(t *testing.T) {
	single := func(opts []broker.Option, multi bool, def ...string) *broker.AskRequest {
		return &broker.AskRequest{Question: "Which database?", Options: opts, MultiSelect: multi, Default: def}
	}
	tests := []struct {
		name        string
		req         *broker.AskRequest
		before      []string // commands of person ana before the deadline; %s is the id
		wantJSON    string   // fallback and answers of the result
		wantOutcome string
	}{
		{
			name:        "default option",
			req:         single(options("Postgres", "SQLite"), false, "SQLite"),
			wantJSON:    `{"fallback":"default","answers":{"Which database?":{"selected":["SQLite"],"custom_text":"","skipped":false,"defaulted":true}}}`,
			wantOutcome: "No answer in 30 min: used the default, SQLite",
		},
		{
			name:        "no default",
			req:         single(options("Postgres", "SQLite"), false),
			wantJSON:    `{"fallback":"none","answers":{}}`,
			wantOutcome: "Expired at 14:30 UTC with no answer",
		},
		{
			name:        "a default written in another case gives the option's label",
			req:         single(options("SQLite (Recommended)", "Postgres"), false, "sqlite"),
			wantJSON:    `{"fallback":"default","answers":{"Which database?":{"selected":["SQLite (Recommended)"],"custom_text":"","skipped":false,"defaulted":true}}}`,
			wantOutcome: "No answer in 30 min: used the default, SQLite",
		},
		{
			name:        "free-text default",
			req:         single(nil, false, "use whatever is installed"),
			wantJSON:    `{"fallback":"default","answers":{"Which database?":{"selected":[],"custom_text":"use whatever is installed","skipped":false,"defaulted":true}}}`,
			wantOutcome: "No answer in 30 min: used the default, “use whatever is installed”",
		},
		{
			name:        "multi-select defaults",
			req:         single(options("Postgres", "SQLite", "Redis"), true, "Redis", "postgres"),
			wantJSON:    `{"fallback":"default","answers":{"Which database?":{"selected":["Redis","Postgres"],"custom_text":"","skipped":false,"defaulted":true}}}`,
			wantOutcome: "No answer in 30 min: used the default, Redis, Postgres",
		},
		{
			name: "every prompt of a dialog has a default",
			req: &broker.AskRequest{Questions: []broker.Prompt{
				{Question: "Which database?", Header: "DB", Options: options("Postgres", "SQLite"), Default: broker.StringList{"SQLite"}},
				{Question: "Which cache?", Header: "Cache", Options: options("Redis", "None"), Default: broker.StringList{"None"}},
			}},
			wantJSON:    `{"fallback":"default","answers":{"Which database?":{"selected":["SQLite"],"custom_text":"","skipped":false,"defaulted":true},"Which cache?":{"selected":["None"],"custom_text":"","skipped":false,"defaulted":true}}}`,
			wantOutcome: "No answer in 30 min: used the default, DB: SQLite; Cache: None",
		},
		{
			name: "one prompt of a dialog has no default: the other takes its own",
			req: &broker.AskRequest{Questions: []broker.Prompt{
				{Question: "Which database?", Options: options("Postgres", "SQLite"), Default: broker.StringList{"SQLite"}},
				{Question: "Which cache?", Options: options("Redis", "None")},
			}},
			wantJSON:    `{"fallback":"partial","answers":{"Which database?":{"selected":["SQLite"],"custom_text":"","skipped":false,"defaulted":true}}}`,
			wantOutcome: "Expired at 14:30 UTC with no answer: Which database?: SQLite (default); Which cache?: no answer",
		},
		{
			name: "an answered prompt is kept when no prompt has a default",
			req: &broker.AskRequest{Questions: []broker.Prompt{
				{Question: "Which database?", Header: "DB", Options: options("Postgres", "SQLite")},
				{Question: "Which cache?", Header: "Cache", Options: options("Redis", "None")},
			}},
			before:      []string{"/answer %s.2 Redis"},
			wantJSON:    `{"fallback":"none","answers":{"Which cache?":{"selected":["Redis"],"custom_text":"","skipped":false,"answered_by":{"channel":"chat","user":"u1","name":"ana"}}}}`,
			wantOutcome: "Expired at 14:30 UTC with 1 of 2 answered: DB: no answer; Cache: Redis (by ana)",
		},
		{
			name: "an answered prompt keeps its answer, not its default",
			req: &broker.AskRequest{Questions: []broker.Prompt{
				{Question: "Which database?", Header: "DB", Options: options("Postgres", "SQLite"), Default: broker.StringList{"sqlite"}},
				{Question: "Which cache?", Header: "Cache", Options: options("Redis", "None"), Default: broker.StringList{"None"}},
			}},
			before:      []string{"/answer %s.2 Redis"},
			wantJSON:    `{"fallback":"default","answers":{"Which database?":{"selected":["SQLite"],"custom_text":"","skipped":false,"defaulted":true},"Which cache?":{"selected":["Redis"],"custom_text":"","skipped":false,"answered_by":{"channel":"chat","user":"u1","name":"ana"}}}}`,
			wantOutcome: "Expired at 14:30 UTC with 1 of 2 answered: DB: SQLite (default); Cache: Redis (by ana)",
		},
		{
			name: "some unanswered prompts take defaults, others have none",
			req: &broker.AskRequest{Questions: []broker.Prompt{
				{Question: "Which database?", Header: "DB", Options: options("Postgres", "SQLite"), Default: broker.StringList{"SQLite"}},
				{Question: "Which cache?", Header: "Cache", Options: options("Redis", "None")},
				{Question: "Which queue?", Header: "Queue", Options: options("Kafka", "NATS")},
			}},
			before:      []string{"/answer %s.3 other RabbitMQ"},
			wantJSON:    `{"fallback":"partial","answers":{"Which database?":{"selected":["SQLite"],"custom_text":"","skipped":false,"defaulted":true},"Which queue?":{"selected":[],"custom_text":"RabbitMQ","skipped":false,"answered_by":{"channel":"chat","user":"u1","name":"ana"}}}}`,
			wantOutcome: "Expired at 14:30 UTC with 1 of 3 answered: DB: SQLite (default); Cache: no answer; Queue: “RabbitMQ” (by ana)",
		},
		{
			name: "a skipped prompt stays skipped",
			req: &broker.AskRequest{Questions: []broker.Prompt{
				{Question: "Which database?", Header: "DB", Options: options("Postgres", "SQLite"), Default: broker.StringList{"SQLite"}},
				{Question: "Which cache?", Header: "Cache", Options: options("Redis", "None"), Default: broker.StringList{"None"}},
			}},
			before:      []string{"/answer %s.1 skip"},
			wantJSON:    `{"fallback":"default","answers":{"Which database?":{"selected":[],"custom_text":"","skipped":true,"answered_by":{"channel":"chat","user":"u1","name":"ana"}},"Which cache?":{"selected":["None"],"custom_text":"","skipped":false,"defaulted":true}}}`,
			wantOutcome: "Expired at 14:30 UTC with 1 of 2 answered: DB: skipped (by ana); Cache: None (default)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, broker.Config{})
			q := e.ask(t, tt.req)
			for _, cmd := range tt.before {
				if r := e.answer(fmt.Sprintf(cmd, q.ID)); !r.OK {
					t.Fatalf("%s before the deadline: %q", cmd, r.Text)
				}
			}

			// The agent is blocked in Wait (as a blocking ask is) when the
			// deadline passes: the sweep wakes it with the result.
			waited := make(chan *broker.Question, 1)
			go func() {
				got, err := e.broker.Wait(context.Background(), "a1", q.ID)
				if err != nil {
					t.Errorf("wait: %v", err)
				}
				waited <- got
			}()
			if st := e.sweep(t, 30*time.Minute); st.TimedOut != 1 {
				t.Fatalf("sweep at the deadline = %+v, want one timed out", st)
			}
			var res *broker.Question
			select {
			case res = <-waited:
			case <-time.After(5 * time.Second):
				t.Fatal("the waiting agent was not woken by the timeout")
			}
			if res == nil {
				t.Fatal("wait returned no question")
			}

			raw, err := json.Marshal(res.Result())
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := json.Unmarshal([]byte(tt.wantJSON), &want); err != nil {
				t.Fatal(err)
			}
			if got["status"] != "timed_out" {
				t.Errorf("status = %v, want timed_out in %s", got["status"], raw)
			}
			for k, v := range want {
				if !reflect.DeepEqual(got[k], v) {
					t.Errorf("%s = %v, want %v\nresult: %s", k, got[k], v, raw)
				}
			}
			if _, ok := got["answered_by"]; ok {
				t.Errorf("a timeout names someone as answering: %s", raw)
			}
			if got["resolved_at"] != "2026-03-02T14:30:00Z" || got["expires_at"] != "2026-03-02T14:30:00Z" {
				t.Errorf("resolved_at %v, expires_at %v, want both 2026-03-02T14:30:00Z", got["resolved_at"], got["expires_at"])
			}

			outcomes := e.outcomes(t, q.ID)
			if len(outcomes) != 1 || outcomes[0] != tt.wantOutcome {
				t.Errorf("the posted copy was updated to %q, want once %q", outcomes, tt.wantOutcome)
			}
			if got := e.events(t, q.ID); !reflect.DeepEqual(got, []broker.Status{broker.StatusTimedOut}) {
				t.Errorf("event log of %s: %v, want one timed_out", q.ID, got)
			}

			// A late answer changes nothing and says why.
			r := e.answer("/answer " + q.ID + " 1")
			if r.OK || r.Text != "This question expired at 14:30 UTC" {
				t.Errorf("a late answer got %+v, want refused with \"This question expired at 14:30 UTC\"", r)
			}
			if got := e.get(t, q.ID); got.Status != broker.StatusTimedOut || got.AnsweredBy != nil {
				t.Errorf("after the late answer the question is %s by %v", got.Status, got.AnsweredBy)
			}
		})
	}
}
