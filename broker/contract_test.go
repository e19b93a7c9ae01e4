package broker_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// resultJSON is the HTTP API's JSON of q's result, decoded for comparing.
func resultJSON(t *testing.T, q *broker.Question) map[string]any {
	t.Helper()
	b, err := json.Marshal(q.Result())
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func twoPrompts(dbDefault, cacheDefault string) *broker.AskRequest {
	p := []broker.Prompt{
		{Question: "Which database?", Header: "DB", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which cache?", Header: "Cache", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}
	if dbDefault != "" {
		p[0].Default = broker.StringList{dbDefault}
	}
	if cacheDefault != "" {
		p[1].Default = broker.StringList{cacheDefault}
	}
	return &broker.AskRequest{SessionID: "s1", Questions: p}
}

// TestSkipIsAnAnswerOnAnyQuestion checks that skip ends a single question
// as answered with skipped: true and the person who skipped, which differs
// from declining it.
func TestSkipIsAnAnswerOnAnyQuestion(t *testing.T) {
	tests := []struct {
		name        string
		text        string
		wantStatus  broker.Status
		wantReply   string
		wantAnswers string
		wantOutcome string
	}{
		{"skip", "/answer %s skip", broker.StatusAnswered, "Recorded: skipped",
			`{"Which database should the service use?":{"selected":[],"custom_text":"","skipped":true,"answered_by":{"channel":"chat","user":"ana","name":"ana"}}}`,
			"Skipped by ana at 14:00 UTC"},
		{"skip by prompt number", "/answer %s.1 skip", broker.StatusAnswered, "Recorded: skipped",
			`{"Which database should the service use?":{"selected":[],"custom_text":"","skipped":true,"answered_by":{"channel":"chat","user":"ana","name":"ana"}}}`,
			"Skipped by ana at 14:00 UTC"},
		{"decline", "/decline %s", broker.StatusDeclined, "Recorded: declined.", `{}`, "Declined by ana at 14:00 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			q := e.ask(t, dbQuestion())
			r := e.b.HandleInbound(context.Background(), in("c1", "ana", strings.ReplaceAll(tt.text, "%s", q.ID)))
			if !r.OK || r.Text != tt.wantReply {
				t.Fatalf("reply %+v, want OK %q", r, tt.wantReply)
			}
			got, err := e.st.Get(context.Background(), q.ID)
			if err != nil {
				t.Fatal(err)
			}
			res := resultJSON(t, got)
			if res["status"] != string(tt.wantStatus) {
				t.Errorf("status %v, want %s", res["status"], tt.wantStatus)
			}
			if !reflect.DeepEqual(res["answers"], decode(t, tt.wantAnswers)) {
				t.Errorf("answers %v, want %s", res["answers"], tt.wantAnswers)
			}
			if !reflect.DeepEqual(res["answered_by"], decode(t, `{"channel":"chat","user":"ana","name":"ana"}`)) {
				t.Errorf("answered_by %v, want ana", res["answered_by"])
			}
			if out := broker.OutcomeText(got, time.UTC); out != tt.wantOutcome {
				t.Errorf("outcome %q, want %q", out, tt.wantOutcome)
			}
		})
	}
}

// TestDefaultIsStoredAsTheOptionLabel checks that a default naming an
// option in any case is stored, shown and applied as that option's label,
// and that two defaults naming one option are refused.
func TestDefaultIsStoredAsTheOptionLabel(t *testing.T) {
	opts := []broker.Option{{Label: "Postgres (Recommended)"}, {Label: "SQLite"}, {Label: "Redis"}}
	tests := []struct {
		name         string
		multi        bool
		def          broker.StringList
		want         []string
		wantDeadline string
		wantErr      string
	}{
		{"lower case", false, broker.StringList{"sqlite"}, []string{"SQLite"}, "Expires 14:30 UTC · default: SQLite", ""},
		{"without the Recommended mark", false, broker.StringList{"POSTGRES"}, []string{"Postgres (Recommended)"}, "Expires 14:30 UTC · default: Postgres (Recommended)", ""},
		{"several on a multi-select", true, broker.StringList{"redis", "sqlite"}, []string{"Redis", "SQLite"}, "Expires 14:30 UTC · default: Redis, SQLite", ""},
		{"free text stays as written", false, broker.StringList{"use whatever is installed"}, []string{"use whatever is installed"}, "Expires 14:30 UTC · default: use whatever is installed", ""},
		{"one option named twice", true, broker.StringList{"redis", "Redis"}, nil, "", `default: "redis" and "Redis" both name the option "Redis"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			req := &broker.AskRequest{Question: "Which store?", Options: opts, MultiSelect: tt.multi, Default: tt.def, Timeout: dur(30 * time.Minute)}
			q, _, err := e.b.Ask(context.Background(), "agent", req)
			if tt.wantErr != "" {
				if !errors.Is(err, broker.ErrInvalid) || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if len(e.ch.Posts()) != 0 {
					t.Fatal("a refused question was posted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stored, _ := e.st.Get(context.Background(), q.ID)
			if got := []string(stored.Prompts[0].Default); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("stored default %q, want %q", got, tt.want)
			}
			if got := broker.DeadlineText(stored, time.UTC); got != tt.wantDeadline {
				t.Errorf("deadline line %q, want %q", got, tt.wantDeadline)
			}
			res := resultJSON(t, stored)
			if got := res["questions"].([]any)[0].(map[string]any)["default"]; len(got.([]any)) != len(tt.want) || got.([]any)[0] != tt.want[0] {
				t.Errorf("the API shows the default as %v, want %q", got, tt.want)
			}
		})
	}
}

// TestDialogAnswersNameWhoGaveThem checks that each answer of a dialog
// names the person who gave it, in the result and on the copies.
func TestDialogAnswersNameWhoGaveThem(t *testing.T) {
	tests := []struct {
		name        string
		second      string
		wantOutcome string
	}{
		{"two people", "bo", "Answered at 14:00 UTC: DB: Postgres (by ana); Cache: Redis (by bo)"},
		{"one person", "ana", "Answered by ana at 14:00 UTC: DB: Postgres; Cache: Redis"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			q := e.ask(t, twoPrompts("", ""))
			if r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+".1 Postgres")); !r.OK {
				t.Fatal(r.Text)
			}
			r := e.b.HandleInbound(context.Background(), in("c2", tt.second, "/answer "+q.ID+".2 Redis"))
			if !r.OK || r.Question.Status != broker.StatusAnswered {
				t.Fatalf("last answer: %+v", r)
			}
			res := resultJSON(t, r.Question)
			want := decode(t, `{
				"Which database?": {"selected":["Postgres"],"custom_text":"","skipped":false,"answered_by":{"channel":"chat","user":"ana","name":"ana"}},
				"Which cache?": {"selected":["Redis"],"custom_text":"","skipped":false,"answered_by":{"channel":"chat","user":"`+tt.second+`","name":"`+tt.second+`"}}}`)
			if !reflect.DeepEqual(res["answers"], want) {
				t.Errorf("answers %v, want %v", res["answers"], want)
			}
			if by := res["answered_by"].(map[string]any); by["user"] != tt.second {
				t.Errorf("answered_by %v, want the last answerer %s", by, tt.second)
			}
			if out := broker.OutcomeText(r.Question, time.UTC); out != tt.wantOutcome {
				t.Errorf("outcome %q, want %q", out, tt.wantOutcome)
			}
		})
	}
}

// TestLateDialogAnswerKeepsEarlierOnes checks the deadline reached through
// a late answer before the sweeper: the answers given so far stay, the
// unanswered prompts take their defaults, the late answer is refused.
func TestLateDialogAnswerKeepsEarlierOnes(t *testing.T) {
	tests := []struct {
		name         string
		req          *broker.AskRequest
		wantFallback string
		wantAnswers  string
		wantOutcome  string
	}{
		{"no defaults", twoPrompts("", ""), "none",
			`{"Which database?":{"selected":["Postgres"],"custom_text":"","skipped":false,"answered_by":{"channel":"chat","user":"ana","name":"ana"}}}`,
			"Expired at 14:30 UTC with 1 of 2 answered: DB: Postgres (by ana); Cache: no answer"},
		{"every prompt has a default", twoPrompts("SQLite", "none"), "default",
			`{"Which database?":{"selected":["Postgres"],"custom_text":"","skipped":false,"answered_by":{"channel":"chat","user":"ana","name":"ana"}},
			  "Which cache?":{"selected":["None"],"custom_text":"","skipped":false,"defaulted":true}}`,
			"Expired at 14:30 UTC with 1 of 2 answered: DB: Postgres (by ana); Cache: None (default)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			q := e.ask(t, tt.req)
			if r := e.b.HandleInbound(context.Background(), in("c1", "ana", "/answer "+q.ID+" Postgres")); !r.OK {
				t.Fatal(r.Text)
			}
			e.clock.Set(q.ExpiresAt)
			late := e.b.HandleInbound(context.Background(), in("c1", "bo", "/answer "+q.ID+" Redis"))
			if late.OK || !errors.Is(late.Err, broker.ErrClosed) || late.Text != "This question expired at 14:30 UTC" {
				t.Fatalf("late answer: %+v", late)
			}
			got, _ := e.st.Get(context.Background(), q.ID)
			res := resultJSON(t, got)
			if res["status"] != "timed_out" || res["fallback"] != tt.wantFallback {
				t.Errorf("status %v fallback %v, want timed_out %s", res["status"], res["fallback"], tt.wantFallback)
			}
			if !reflect.DeepEqual(res["answers"], decode(t, tt.wantAnswers)) {
				t.Errorf("answers %v, want %s", res["answers"], tt.wantAnswers)
			}
			if _, ok := res["answered_by"]; ok {
				t.Errorf("a timeout names someone as answering: %v", res["answered_by"])
			}
			if out := broker.OutcomeText(got, time.UTC); out != tt.wantOutcome {
				t.Errorf("outcome %q, want %q", out, tt.wantOutcome)
			}
		})
	}
}

// TestDeadlineLineNamesEachDefault checks that the deadline line and the
// reminder say which prompts have a default when only some do, since
// those defaults apply at the deadline.
func TestDeadlineLineNamesEachDefault(t *testing.T) {
	tests := []struct {
		name, db, cache, want string
	}{
		{"every prompt", "SQLite", "None", "Expires 14:30 UTC · default: SQLite; None"},
		{"one prompt", "sqlite", "", "Expires 14:30 UTC · default: DB: SQLite"},
		{"none", "", "", "Expires 14:30 UTC"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, nil)
			q := e.ask(t, twoPrompts(tt.db, tt.cache))
			if got := broker.DeadlineText(q, time.UTC); got != tt.want {
				t.Errorf("deadline line %q, want %q", got, tt.want)
			}
		})
	}
}

func dur(d time.Duration) *broker.Duration { v := broker.Duration(d); return &v }
