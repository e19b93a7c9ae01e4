package broker_test

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
)

var cardNow = time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)

func cardQuestion() *broker.Question {
	return &broker.Question{
		ID: "k7m2qx",
		Prompts: []broker.Prompt{
			{Question: "Which database?", Header: "DB", Options: []broker.Option{
				{Label: "Postgres (Recommended)", Description: "the team knows it"}, {Label: "SQLite"},
			}, Default: broker.StringList{"SQLite"}},
			{Question: "Which caches?", MultiSelect: true, Options: []broker.Option{{Label: "Redis"}, {Label: "Memcached"}, {Label: "None"}}},
			{Question: "Anything else?"},
		},
		Selections: map[int][]int{1: {2, 0, 2}},
		Targets:    []broker.Target{{Channel: "slack", Chat: "C1"}, {Channel: "telegram", Chat: "1"}, {Channel: "web"}, {Channel: "slack", Chat: "C2"}},
		Context:    "We are moving off the old box.",
		Status:     broker.StatusPending,
		Timeout:    30 * time.Minute,
		CreatedAt:  cardNow,
		ExpiresAt:  cardNow.Add(30 * time.Minute),
	}
}

func TestCardPending(t *testing.T) {
	q := cardQuestion()
	q.Progress = []*broker.Answer{{Selected: []string{"Postgres"}}}
	c := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC, Channel: "slack"})

	if !c.Pending || c.Current != 1 || c.Title != "3 questions, answered one after the other" || c.Progress != "1 of 3 answered" {
		t.Fatalf("card head: pending %v current %d title %q progress %q", c.Pending, c.Current, c.Title, c.Progress)
	}
	if got, want := c.StateLine(), "Expires 14:30 UTC · default: DB: SQLite · also in telegram, web"; got != want {
		t.Errorf("state line %q, want %q", got, want)
	}
	db := c.Prompts[0]
	if db.Open || db.Answer != "Postgres" || len(db.Controls) != 0 || db.Options[0].Label != "Postgres" || !db.Options[0].Recommended {
		t.Errorf("answered prompt: %+v", db)
	}
	caches := c.Prompts[1]
	if !caches.Open || caches.Expect != "Choose one or more; you can add a note" || caches.Example != "/answer k7m2qx.2 1,3" {
		t.Errorf("multi-select prompt: open %v expect %q example %q", caches.Open, caches.Expect, caches.Example)
	}
	if !caches.Options[0].Selected || caches.Options[1].Selected || !caches.Options[2].Selected {
		t.Errorf("ticks: %+v", caches.Options)
	}
	if got := caches.Options[1].Command; got != "/answer k7m2qx.2 2" {
		t.Errorf("option command %q", got)
	}
	submit, ok := caches.Control(broker.ControlSubmit)
	if !ok || submit.Label != "Submit" || submit.Command != "/answer k7m2qx.2 1,3" {
		t.Errorf("submit %+v", submit)
	}
	if s, err := broker.DecodeStep(submit.Data); err != nil || s.Kind != broker.StepSubmit || len(s.Options) != 2 {
		t.Errorf("submit data %q: %+v %v", submit.Data, s, err)
	}
	if s, err := broker.DecodeStep(caches.Options[2].Data); err != nil || s.Kind != broker.StepToggle || s.Options[0] != 2 || s.Ref.Index != 1 {
		t.Errorf("toggle data %q: %+v %v", caches.Options[2].Data, s, err)
	}
	other, ok := c.Prompts[2].Control(broker.ControlOther)
	if !ok || other.Label != "Answer…" || !other.TakesText || other.Command+" my text" != broker.FormatOther(q.Ref(2), "my text") {
		t.Errorf("free-text prompt's Other: %+v", other)
	}
	if c.Prompts[2].Expect != "Answer in your own words" {
		t.Errorf("free-text prompt's expect %q", c.Prompts[2].Expect)
	}
	var kinds []string
	for _, ctl := range c.Controls {
		kinds = append(kinds, ctl.Label+"="+ctl.Command)
	}
	if got := strings.Join(kinds, " "); got != "Not ready=/discuss k7m2qx Decline=/decline k7m2qx" {
		t.Errorf("question controls: %s", got)
	}
	if c.Outcome != nil {
		t.Errorf("a pending card has an outcome: %+v", c.Outcome)
	}
}

func TestCardChips(t *testing.T) {
	q := cardQuestion()
	q.ExpiresAt = time.Date(2026, 12, 4, 9, 15, 0, 0, time.UTC)
	q.Policy.Snooze = &broker.SnoozePolicy{}
	q.State.Snoozes = []broker.Snooze{{By: broker.Responder{Channel: "slack", User: "U1", Name: "bo"}}}
	q.RequestedBy = []string{"person:ana"}
	c := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC, Channel: "web"})
	if got, want := c.StateLine(), "Expires Fri 4 Dec 09:15 UTC · default: DB: SQLite · snoozed by bo · asked by ana · also in slack, telegram"; got != want {
		t.Errorf("state line\n got %q\nwant %q", got, want)
	}
	if s, ok := c.Control(broker.ControlSnooze); !ok || s.Command != "/snooze k7m2qx" {
		t.Errorf("snooze control %+v", s)
	}
	if got, want := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC}).StateLine(), "Expires Fri 4 Dec 09:15 UTC · default: DB: SQLite · snoozed by bo · asked by ana"; got != want {
		t.Errorf("a viewer without a channel (which lists the copies itself)\n got %q\nwant %q", got, want)
	}
	q.ExpiresAt = time.Date(2027, 1, 2, 9, 15, 0, 0, time.UTC)
	if got := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC}).Chips[0].Text; got != "Expires 2 Jan 2027 09:15 UTC" {
		t.Errorf("expiry in another year: %q", got)
	}
	loc := time.FixedZone("CET", 3600)
	q.ExpiresAt = time.Date(2026, 12, 3, 23, 30, 0, 0, time.UTC)
	if got := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: loc}).Chips[0].Text; got != "Expires Fri 4 Dec 00:30 CET" {
		t.Errorf("expiry on the reader's next day: %q", got)
	}
}

func TestCardResolved(t *testing.T) {
	q := cardQuestion()
	q.Prompts = q.Prompts[:1]
	q.Status, q.ResolvedAt = broker.StatusAnswered, cardNow.Add(2*time.Minute)
	q.AnsweredBy = &broker.Responder{Channel: "slack", User: "U1", Name: "ana"}
	q.Answers = map[string]broker.Answer{"Which database?": {Selected: []string{"Postgres"}, AnsweredBy: q.AnsweredBy}}
	c := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC})
	if c.Pending || c.Outcome == nil || c.Outcome.Text != "Answered by ana at 14:02 UTC: Postgres" || c.Outcome.By != "ana" {
		t.Fatalf("outcome %+v", c.Outcome)
	}
	if len(c.Controls) != 0 || len(c.Prompts[0].Controls) != 0 || c.Prompts[0].Open || c.Title != "" {
		t.Errorf("a resolved card keeps controls: %+v", c)
	}
}

func TestCardShorten(t *testing.T) {
	q := cardQuestion()
	q.Context = strings.Repeat("context ", 500)
	q.Prompts[0].Options[0].Description = strings.Repeat("d", 300)
	q.Prompts[0].Question = strings.Repeat("q", 900)
	c := broker.BuildCard(q, broker.Viewer{Now: cardNow, Loc: time.UTC})
	size := c.Size()

	small := c.Shorten(100)
	if !small.ContextCut || !strings.HasSuffix(small.Context, broker.ContextCutMark) {
		t.Fatalf("the context goes first: cut %v %q", small.ContextCut, small.Context[len(small.Context)-60:])
	}
	if got := size - small.Size(); got < 100 {
		t.Errorf("Shorten(100) took %d characters away", got)
	}
	if small.Prompts[0].Options[0].Description != c.Prompts[0].Options[0].Description || small.Prompts[0].Question != c.Prompts[0].Question {
		t.Errorf("descriptions and questions cut while the context sufficed")
	}
	if c.ContextCut || c.Context != q.Context {
		t.Errorf("Shorten changed the card it was called on")
	}

	all := c.Shorten(size - 200)
	if all.Context != broker.ContextCutMark || all.Prompts[0].Options[0].Description != "" {
		t.Errorf("then the descriptions: context %q description %q", all.Context, all.Prompts[0].Options[0].Description)
	}
	if n := utf8.RuneCountInString(all.Prompts[0].Question); n != 120+utf8.RuneCountInString(broker.ShortenedMark) {
		t.Errorf("then the questions: %d characters", n)
	}
	for i := range all.Prompts {
		if all.Prompts[i].Options != nil && len(all.Prompts[i].Options) != len(c.Prompts[i].Options) {
			t.Errorf("options dropped from prompt %d", i)
		}
	}
	if got := c.Shorten(0); got.Context != c.Context {
		t.Errorf("Shorten(0) changed the card")
	}
}
