package brokertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// storeWait bounds every wait on a channel in the conformance suite. It is
// generous on purpose: the suite never sleeps for timing, it only gives up.
const storeWait = 5 * time.Second

// NewQuestion returns a valid pending question with one prompt of two
// options, created at now and due 30 minutes later. Tests change the fields
// they care about.
func NewQuestion(id, agent string, now time.Time) *broker.Question {
	now = now.UTC().Truncate(time.Millisecond)
	return &broker.Question{
		ID:    id,
		Agent: agent,
		Prompts: []broker.Prompt{{
			Question: "Which database?",
			Header:   "Database",
			Options:  []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}},
		}},
		Route:     "default",
		Targets:   []broker.Target{{Channel: "web"}},
		Timeout:   30 * time.Minute,
		Status:    broker.StatusPending,
		CreatedAt: now,
		ExpiresAt: now.Add(30 * time.Minute),
	}
}

// The bounds of FullQuestion's typed prompt.
var portMin, portMax = 1024.0, 65535.0

// typed is the broker.Value of JSON s, a literal of the suite.
func typed(s string) broker.Value {
	var v broker.Value
	_ = v.UnmarshalJSON([]byte(s))
	return v
}

// FullQuestion returns a pending question with every field set, including
// unicode text, several prompts with options and defaults, one of them
// typed (Prompt.Field), targets, reminders and a lease, for round-trip
// tests.
func FullQuestion(id, agent string, now time.Time) *broker.Question {
	now = now.UTC().Truncate(time.Millisecond)
	no := false
	q := NewQuestion(id, agent, now)
	q.SessionID = "sess-ü-1"
	q.ToolCallID = "toolu_01ÄÖ"
	q.Prompts = []broker.Prompt{
		{
			Question: "Welche Datenbank? 数据库 🚀 \"quoted\" <b>&amp;</b>",
			Header:   "DB ✓",
			Options: []broker.Option{
				{Label: "Postgres (Recommended)", Description: "Relationale DB — bewährt"},
				{Label: "SQLite", Description: "eingebettet", Action: broker.ActionEndTurn, Prefill: "use sqlite\nplease"},
			},
			Default: broker.StringList{"SQLite"},
		},
		{
			Question:    "Which features?",
			Header:      "Features",
			Options:     []broker.Option{{Label: "Search"}, {Label: "Export"}, {Label: "Sync"}},
			MultiSelect: true,
			Other:       &no,
			Default:     broker.StringList{"Search", "Sync"},
		},
		{Question: "Anything else? (free text)"},
		{
			Question: "Which port?",
			Header:   "Port",
			Default:  broker.StringList{"8080"},
			Field:    &broker.Field{Name: "port", Type: broker.FieldInteger, Title: "Port ✓", Minimum: &portMin, Maximum: &portMax, Default: typed("8080")},
		},
	}
	q.Route = "ops"
	q.Targets = []broker.Target{{Channel: "telegram", Chat: "-100123"}, {Channel: "slack", Chat: "C0123"}, {Channel: "web"}}
	q.Timeout = 2 * time.Hour
	q.Context = "Deploying 🚢 to prod; Ärger vermeiden.\nLine two."
	q.Responders = []string{"telegram:42", "slack:role:S01"}
	q.CallbackURL = "https://agent.example/callback?x=1&y=ü"
	q.Fingerprint = "f00dbabe"
	q.Lease = 90 * time.Second
	q.LeaseUntil = now.Add(90 * time.Second)
	q.Reminders = []time.Time{now.Add(time.Hour), now.Add(108 * time.Minute)}
	q.Selections = map[int][]int{1: {0, 2}}
	q.Progress = []*broker.Answer{nil, {Selected: []string{"Search"}, AnsweredBy: &broker.Responder{Channel: "slack", User: "U7", Name: "Bø"}}, nil, nil}
	q.ExpiresAt = now.Add(2 * time.Hour)
	return q
}

// normalizeTimes returns a copy of q with every time in UTC and cut to the
// millisecond, the precision every store keeps.
func normalizeTimes(q *broker.Question) *broker.Question {
	c := q.Clone()
	ms := func(t time.Time) time.Time {
		if t.IsZero() {
			return time.Time{}
		}
		return t.UTC().Truncate(time.Millisecond)
	}
	c.CreatedAt, c.ExpiresAt, c.ResolvedAt, c.LeaseUntil = ms(c.CreatedAt), ms(c.ExpiresAt), ms(c.ResolvedAt), ms(c.LeaseUntil)
	for i := range c.Reminders {
		c.Reminders[i] = ms(c.Reminders[i])
	}
	return c
}

// sameQuestion fails t unless got and want hold the same data, times
// compared to the millisecond.
func sameQuestion(t *testing.T, what string, got, want *broker.Question) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got nil question, want %s", what, want.ID)
	}
	g, _ := json.MarshalIndent(normalizeTimes(got), "", "  ")
	w, _ := json.MarshalIndent(normalizeTimes(want), "", "  ")
	if string(g) != string(w) {
		t.Fatalf("%s: question differs\n got: %s\nwant: %s", what, g, w)
	}
}

// sameTime fails t unless got and want are the same instant to the millisecond.
func sameTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Truncate(time.Millisecond).Equal(want.Truncate(time.Millisecond)) {
		t.Fatalf("%s = %v, want %v", what, got.UTC(), want.UTC())
	}
}

// mustCreate stores q and fails t unless it was created.
func mustCreate(t *testing.T, s broker.Store, q *broker.Question) *broker.Question {
	t.Helper()
	return mustCreateInProcess(t, s, q, nil)
}

// mustCreateInProcess stores q with its copies at inProcess (Create) and
// fails t unless it was created.
func mustCreateInProcess(t *testing.T, s broker.Store, q *broker.Question, inProcess []broker.Target) *broker.Question {
	t.Helper()
	got, created, err := s.Create(context.Background(), q, inProcess)
	if err != nil {
		t.Fatalf("Create(%s): %v", q.ID, err)
	}
	if !created {
		t.Fatalf("Create(%s): created = false, want true", q.ID)
	}
	return got
}

// mustGet returns the stored question or fails t.
func mustGet(t *testing.T, s broker.Store, id string) *broker.Question {
	t.Helper()
	q, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s): %v", id, err)
	}
	return q
}

// mustResolve resolves id with r or fails t.
func mustResolve(t *testing.T, s broker.Store, id string, r broker.Resolution) *broker.Question {
	t.Helper()
	q, err := s.Resolve(context.Background(), id, r)
	if err != nil {
		t.Fatalf("Resolve(%s): %v", id, err)
	}
	return q
}

// answeredAt is a resolution, made at at, answering the first prompt of NewQuestion.
func answeredAt(at time.Time, choice string) broker.Resolution {
	return broker.Resolution{
		Status:     broker.StatusAnswered,
		Answers:    map[string]broker.Answer{"Which database?": {Selected: []string{choice}}},
		AnsweredBy: &broker.Responder{Channel: "web", User: "u1", Name: "ana"},
		ResolvedAt: at.UTC().Truncate(time.Millisecond),
	}
}

// wantErr fails t unless err matches target.
func wantErr(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: err = %v, want %v", what, err, target)
	}
}

// wantIDs fails t unless got equals want, in order.
func wantIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

// wantSet fails t unless got holds exactly the ids of want, in any order.
func wantSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	ok := len(got) == len(want)
	for _, id := range want {
		if seen[id] != 1 {
			ok = false
		}
	}
	if !ok {
		t.Fatalf("%s = %v, want (any order) %v", what, got, want)
	}
}

// questionIDs returns the ids of qs in order.
func questionIDs(qs []*broker.Question) []string {
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = q.ID
	}
	return ids
}

// baseTime is a recent instant cut to the millisecond, so that stores that
// expire keys by wall clock keep everything the suite writes.
func baseTime() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// newIDs returns n distinct valid question ids.
func newIDs(n int) []string {
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		id := broker.NewID()
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
