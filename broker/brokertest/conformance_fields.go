package brokertest

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var fieldTests = []storeTest{
	{"RoundTripEveryType", testFieldsRoundTrip},
}

// typedQuestions are two dialogs whose prompts have a field of every type
// and format, as the broker stores them (a choice field's choices as its
// options), each with the answer a person gave, typed.
func typedQuestions(now time.Time) []*broker.Question {
	no := false
	one, two := 1, 2
	lo, hi := 0.0, 1.5
	type typedPrompt struct {
		p broker.Prompt
		a broker.Answer
	}
	who := &broker.Responder{Channel: "slack", User: "U7", Name: "Bø"}
	text := func(s, v string) broker.Answer {
		return broker.Answer{Selected: []string{}, CustomText: s, Value: typed(v), AnsweredBy: who}
	}
	picked := func(v string, labels ...string) broker.Answer {
		return broker.Answer{Selected: labels, Value: typed(v), AnsweredBy: who}
	}
	sets := [][]typedPrompt{{
		{broker.Prompt{Question: "Your email?", Field: &broker.Field{Name: "email", Type: broker.FieldString, Format: broker.FormatEmail, MinLength: &two}},
			text("ana@example.com", `"ana@example.com"`)},
		{broker.Prompt{Question: "Which ratio?", Field: &broker.Field{Type: broker.FieldNumber, Title: "Ratio <b>", Minimum: &lo, Maximum: &hi}},
			text("0.25", "0.25")},
		{broker.Prompt{Question: "Which port?", Field: &broker.Field{Type: broker.FieldInteger, Description: "über 1023"}, Default: broker.StringList{"8080"}},
			text("8443", "8443")},
		{broker.Prompt{Question: "Deploy now?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}, Other: &no,
			Field: &broker.Field{Type: broker.FieldBoolean, Default: typed("true")}, Default: broker.StringList{"Yes"}},
			picked("false", "No")},
	}, {
		{broker.Prompt{Question: "Which level?", Options: []broker.Option{{Label: "Niedrig"}, {Label: "High"}}, Other: &no,
			Field: &broker.Field{Type: broker.FieldEnum, Choices: []broker.FieldChoice{{Value: "lo", Title: "Niedrig"}, {Value: "hi"}}}},
			picked(`"lo"`, "Niedrig")},
		{broker.Prompt{Question: "Which regions?", Options: []broker.Option{{Label: "eu"}, {Label: "us"}}, Other: &no, MultiSelect: true,
			Field: &broker.Field{Type: broker.FieldMultiEnum, Choices: []broker.FieldChoice{{Value: "eu"}, {Value: "us"}}, MinItems: &one, MaxItems: &two}},
			picked(`["eu","us"]`, "eu", "us")},
		{broker.Prompt{Question: "Start on?", Field: &broker.Field{Type: broker.FieldString, Format: broker.FormatDate}},
			text("2026-12-03", `"2026-12-03"`)},
		{broker.Prompt{Question: "At what time?", Field: &broker.Field{Type: broker.FieldString, Format: broker.FormatDateTime, MinLength: &one}},
			text("2026-12-03T14:30:00+01:00", `"2026-12-03T14:30:00+01:00"`)},
	}}
	var out []*broker.Question
	for _, set := range sets {
		q := NewQuestion(broker.NewID(), "a1", now)
		q.Prompts = nil
		q.Answers = map[string]broker.Answer{}
		for _, tp := range set {
			q.Prompts = append(q.Prompts, tp.p)
			q.Answers[tp.p.Question] = tp.a
		}
		out = append(out, q)
	}
	return out
}

// testFieldsRoundTrip stores questions with a field of every type, saves
// a typed answer of a dialog's first prompt, resolves them with typed
// answers, and reads each back as it was.
func testFieldsRoundTrip(t *testing.T, s broker.Store) {
	ctx := context.Background()
	now := baseTime()
	for _, q := range typedQuestions(now) {
		answers := q.Answers
		q.Answers = nil
		want := q.Clone()
		sameQuestion(t, "Create", mustCreate(t, s, q.Clone()), want)
		sameQuestion(t, "Get", mustGet(t, s, q.ID), want)

		first := answers[q.Prompts[0].Question]
		saved, err := s.SaveProgress(ctx, q.ID, 0, first)
		if err != nil {
			t.Fatalf("SaveProgress: %v", err)
		}
		want.Progress = make([]*broker.Answer, len(q.Prompts))
		want.Progress[0] = &first
		sameQuestion(t, "SaveProgress", saved, want)
		sameQuestion(t, "Get after SaveProgress", mustGet(t, s, q.ID), want)

		r := broker.Resolution{Status: broker.StatusAnswered, Answers: answers, AnsweredBy: first.AnsweredBy, ResolvedAt: now.Add(time.Minute)}
		mustResolve(t, s, q.ID, r)
		got := mustGet(t, s, q.ID)
		for _, p := range q.Prompts {
			g, w := got.Answers[p.Question], answers[p.Question]
			if g.Value.String() != w.Value.String() || strings.Join(g.Selected, "|") != strings.Join(w.Selected, "|") || g.CustomText != w.CustomText {
				t.Errorf("answer to %q read back as %+v, want %+v", p.Question, g, w)
			}
		}
		data, err := json.Marshal(got.Result())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range answers {
			if !strings.Contains(string(data), `"value":`+a.Value.String()) {
				t.Errorf("the result %s lacks the typed value %s", data, a.Value)
			}
		}
	}
}
