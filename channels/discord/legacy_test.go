package discord

import (
	"slices"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// TestLegacyButtons taps, through the fake Discord, the buttons, menus
// and forms of messages posted before custom ids carried steps, one
// earlier format each, and checks that the answer is recorded. They go
// with legacy.go after one release.
func TestLegacyButtons(t *testing.T) {
	w := newWorld(t, nil)
	no := false
	multi := func(other *bool) *broker.AskRequest {
		r := dbRequest()
		r.MultiSelect, r.Other = true, other
		return r
	}
	free := &broker.AskRequest{Question: "Anything else?"}
	// form submits the form the response r opened, with fields.
	form := func(t *testing.T, a *asked, id string, fields ...string) {
		t.Helper()
		r, err := w.fake.WaitResponse(testCtx(t), id)
		if err != nil || r.Type != discordfake.ResponseModal {
			t.Fatalf("answered %s (%v), want a form", r.Raw, err)
		}
		w.fake.SubmitModalFields(w.ana, a.msg, r.Data.CustomID, fields...)
	}
	tests := []struct {
		name     string
		req      *broker.AskRequest
		act      func(t *testing.T, a *asked)
		selected []string
		text     string
	}{
		{"a command: /answer k7m2qx 2", dbRequest(), func(t *testing.T, a *asked) {
			w.fake.Click(w.ana, a.msg, "/answer "+a.q.ID+" 2")
		}, []string{"SQLite"}, ""},
		{"m: the menu", multi(&no), func(t *testing.T, a *asked) {
			w.fake.Choose(w.ana, a.msg, "m:"+a.q.ID+":0:1", "2", "0")
		}, []string{"Postgres (Recommended)", "MySQL"}, ""},
		{"mn: the menu a note follows", multi(nil), func(t *testing.T, a *asked) {
			form(t, a, w.fake.Choose(w.ana, a.msg, "mn:"+a.q.ID+":0:1", "1"), textInputID, "on a laptop")
		}, []string{"SQLite"}, "on a laptop"},
		{"mm: the note form opened by the menu", multi(nil), func(t *testing.T, a *asked) {
			w.fake.SubmitModal(w.ana, a.msg, "mm:"+a.q.ID+":0:1:13", textInputID, "both")
		}, []string{"Postgres (Recommended)", "MySQL"}, "both"},
		{"o: the Answer… button", free, func(t *testing.T, a *asked) {
			form(t, a, w.fake.Click(w.ana, a.msg, "o:"+a.q.ID+":0:1"), textInputID, "nothing")
		}, nil, "nothing"},
		{"on: the Other or note… button", dbRequest(), func(t *testing.T, a *asked) {
			form(t, a, w.fake.Click(w.ana, a.msg, "on:"+a.q.ID+":0:1"), numbersInputID, "3", textInputID, "5.7")
		}, []string{"MySQL"}, "5.7"},
		{"om: the Other form", dbRequest(), func(t *testing.T, a *asked) {
			w.fake.SubmitModalFields(w.ana, a.msg, "om:"+a.q.ID+":0:1", numbersInputID, "", textInputID, "MariaDB")
		}, nil, "MariaDB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := w.ask(t, tt.req)
			tt.act(t, a)
			q := a.done(t)
			got := q.Answers[q.Prompts[0].Question]
			if q.Status != broker.StatusAnswered || !slices.Equal(got.Selected, tt.selected) || got.CustomText != tt.text {
				t.Errorf("%s: %+v, want %q with %q", q.Status, got, tt.selected, tt.text)
			}
			if q.AnsweredBy == nil || q.AnsweredBy.User != w.ana.ID {
				t.Errorf("answered by %+v, want ana", q.AnsweredBy)
			}
		})
	}
}

// TestLegacyStep reads every earlier custom id as the step it is now,
// and refuses what none of them was.
func TestLegacyStep(t *testing.T) {
	ref := broker.PromptRef{ID: "k7m2qx", Index: 2, Count: 4}
	for _, tt := range []struct {
		id   string
		ok   bool
		want broker.Step
	}{
		{"m:k7m2qx:2:4", true, broker.Step{Kind: broker.StepPick, Ref: ref}},
		{"mn:k7m2qx:2:4", true, broker.Step{Kind: broker.StepWithNote, Ref: ref}},
		{"o:k7m2qx:2:4", true, broker.Step{Kind: broker.StepOther, Ref: ref}},
		{"on:k7m2qx:2:4", true, broker.Step{Kind: broker.StepNote, Ref: ref}},
		{"om:k7m2qx:2:4", true, broker.Step{Kind: broker.StepOther, Ref: ref}},
		{"mm:k7m2qx:2:4:134", true, broker.Step{Kind: broker.StepWithNote, Ref: ref, Options: []int{0, 2, 3}}},
		{"mm:k7m2qx:0:1", false, broker.Step{}},
		{"mm:k7m2qx:0:1:15", false, broker.Step{}},
		{"mm:k7m2qx:0:1:12345", false, broker.Step{}},
		{"om:k7m2qx:0:1:1", false, broker.Step{}},
		{"o:k7m2qx:2:2", false, broker.Step{}},
		{"x:k7m2qx:0:1", false, broker.Step{}},
		{"m:k7m2qx:0", false, broker.Step{}},
		{"m::0:1", false, broker.Step{}},
		{"m:k7m2qx:a:1", false, broker.Step{}},
		{"m:k7m2qx:0:5", false, broker.Step{}},
		{"/answer k7m2qx 2", false, broker.Step{}},
	} {
		got, ok := legacyStep(tt.id)
		if ok != tt.ok || got.Kind != tt.want.Kind || got.Ref != tt.want.Ref || !slices.Equal(got.Options, tt.want.Options) {
			t.Errorf("legacyStep(%q) = %+v, %v; want %+v, %v", tt.id, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzReadStep holds readStep to its contract on any custom id: it never
// panics, and what it reads as a step (not a command) names a valid
// prompt and writes back as data within MaxStepData.
func FuzzReadStep(f *testing.F) {
	for _, s := range []string{"1o:k7m2qx.1/1:2", "1a:k7m2qx.3/4:134", "mm:k7m2qx:2:4:134", "on:k7m2qx:0:1", "m:k7m2qx:0:5", "/answer k7m2qx 2", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		s, err := readStep(id)
		if err != nil || s.Legacy != "" {
			return
		}
		if !s.Ref.Valid() {
			t.Fatalf("%q reads as a step of an invalid prompt %+v", id, s.Ref)
		}
		if d := broker.EncodeStep(s); len(d) > broker.MaxStepData {
			t.Fatalf("%q reads as %+v, written as %q over %d bytes", id, s, d, broker.MaxStepData)
		}
	})
}
