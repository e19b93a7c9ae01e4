package telegram

import (
	"reflect"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// TestOldButtonsStillWork taps, through the fake Bot API, a button of
// each format the release before broker steps posted (legacy.go), on a
// question posted now, and checks that what it did then is recorded.
func TestOldButtonsStillWork(t *testing.T) {
	// holdNote keeps a note for prompt 1 of q, as Other or note… and a
	// reply do.
	holdNote := func(e *env, q *broker.Question, m telegramfake.Message) telegramfake.Message {
		e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
		e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL", e.lastPrompt(team.ID, m.ID).ID))
		return e.waitMessage(team.ID, m.ID, "offered the note", func(m telegramfake.Message) bool { return buttons(m)["✖ Drop note"] != "" })
	}
	tests := []struct {
		name string
		req  *broker.AskRequest
		// act taps the old button and whatever finishes the answer.
		act      func(e *env, q *broker.Question, m telegramfake.Message)
		selected []string
		custom   string
	}{
		{
			name: "a command: /answer <id> 2",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "/answer "+q.ID+" 2")); got.Text != "Recorded: SQLite" {
					t.Errorf("toast %q", got.Text)
				}
			},
			selected: []string{"SQLite"},
		},
		{
			name: "a command: /toggle <id> 1, then Submit",
			req:  regionsRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "/toggle "+q.ID+" 1")); got.Text != "Selected: Europe. Tap Submit when ready." {
					t.Errorf("toast %q", got.Text)
				}
				m = e.waitMessage(team.ID, m.ID, "showed the tick", func(m telegramfake.Message) bool { return buttons(m)["Submit (1)"] != "" })
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Submit (1)"]))
			},
			selected: []string{"Europe"},
		},
		{
			name: "Other…: o:<id>:<prompt>",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				// It opens the one reply box, as Other or note… does now.
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "o:"+q.ID+":0")); got.Text != "Type in the reply box, then tap the option it goes with or Send as my answer." {
					t.Errorf("toast %q", got.Text)
				}
				e.waitReply(team.ID, e.fake.Send(ana, team.ID, "CockroachDB", e.lastPrompt(team.ID, m.ID).ID))
				m = e.waitMessage(team.ID, m.ID, "offered the text as the answer", func(m telegramfake.Message) bool { return buttons(m)["Send as my answer"] != "" })
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Send as my answer"]))
			},
			selected: []string{}, custom: "CockroachDB",
		},
		{
			name: "Note…: n:<id>:<prompt>",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				// It opens the one reply box of Other or note….
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "n:"+q.ID+":0")); got.Text != "Type in the reply box, then tap the option it goes with or Send as my answer." {
					t.Errorf("toast %q", got.Text)
				}
				box := e.lastPrompt(team.ID, m.ID)
				if !strings.Contains(box.Text, "type your answer, or a note to go with an option, for: Which database should we use?") {
					t.Errorf("the box reads %q", box.Text)
				}
				e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL", box.ID))
				m = e.waitMessage(team.ID, m.ID, "offered the note", func(m telegramfake.Message) bool { return buttons(m)["2. SQLite + note"] != "" })
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["2. SQLite + note"]))
			},
			selected: []string{"SQLite"}, custom: "with WAL",
		},
		{
			name: "📝 Note… posted beside Other or note…: a StepNote",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, stepData(broker.StepNote, q.Ref(0)))); got.Text != "Type in the reply box, then tap the option it goes with or Send as my answer." {
					t.Errorf("toast %q", got.Text)
				}
				e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL", e.lastPrompt(team.ID, m.ID).ID))
				m = e.waitMessage(team.ID, m.ID, "offered the note", func(m telegramfake.Message) bool { return buttons(m)["2. SQLite + note"] != "" })
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["2. SQLite + note"]))
			},
			selected: []string{"SQLite"}, custom: "with WAL",
		},
		{
			name: "an option with the note: a:<id>:<prompt>:<prompts>:<options>",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				m = holdNote(e, q, m)
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "a:"+q.ID+":0:1:2")); got.Text != "Recorded: SQLite (note: “with WAL”)" {
					t.Errorf("toast %q", got.Text)
				}
			},
			selected: []string{"SQLite"}, custom: "with WAL",
		},
		{
			name: "Drop note: x:<id>:<prompt>",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				m = holdNote(e, q, m)
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "x:"+q.ID+":0")); got.Text != "Note dropped." {
					t.Errorf("toast %q", got.Text)
				}
				m = e.waitMessage(team.ID, m.ID, "dropped the note", func(m telegramfake.Message) bool { return buttons(m)["2. SQLite"] != "" })
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["2. SQLite"]))
			},
			selected: []string{"SQLite"},
		},
		{
			name: "Done with nothing ticked: d:<id>:<prompt>",
			req:  regionsRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "d:"+q.ID+":0"))
				if got.Text != "Nothing is ticked yet: tap the options you want first." || got.ShowAlert {
					t.Errorf("toast %+v", got)
				}
				if st := e.get(q.ID); st.Status != broker.StatusPending || len(st.Selections[0]) != 0 {
					t.Fatalf("the old Done changed the question: %s %v", st.Status, st.Selections)
				}
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 2. Americas"]))
				m = e.waitMessage(team.ID, m.ID, "showed the tick", func(m telegramfake.Message) bool { return buttons(m)["Submit (2)"] != "" })
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Submit (2)"]))
			},
			selected: []string{"Americas"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			q, m := e.ask(tt.req, team)
			tt.act(e, q, m)
			got := e.waitResolved(q.ID)
			a := got.Answers[q.Prompts[0].Question]
			if got.Status != broker.StatusAnswered || !reflect.DeepEqual(a.Selected, tt.selected) || a.CustomText != tt.custom {
				t.Errorf("%s with %+v, want selected %v custom %q", got.Status, a, tt.selected, tt.custom)
			}
		})
	}
}

// TestLegacyStep reads each old format, and refuses data that is none.
func TestLegacyStep(t *testing.T) {
	ref := func(i, n int) broker.PromptRef { return broker.PromptRef{ID: "k7m2qx", Index: i, Count: n} }
	tests := []struct {
		data string
		want broker.Step
		ok   bool
	}{
		{"o:k7m2qx:1", broker.Step{Kind: broker.StepOther, Ref: ref(1, 0)}, true},
		{"n:k7m2qx:0", broker.Step{Kind: broker.StepNote, Ref: ref(0, 0)}, true},
		{"x:k7m2qx:3", broker.Step{Kind: broker.StepDropNote, Ref: ref(3, 0)}, true},
		{"d:k7m2qx:0", broker.Step{Kind: broker.StepSubmit, Ref: ref(0, 0)}, true},
		{"a:k7m2qx:1:2:13", broker.Step{Kind: broker.StepWithNote, Ref: ref(1, 2), Options: []int{0, 2}}, true},
		{"a:k7m2qx:0:1:0", broker.Step{Kind: broker.StepWithNote, Ref: ref(0, 1)}, true},
		{"/answer zzzzzz", broker.Step{Legacy: "/answer zzzzzz"}, true},
		{"x:k7m2qx", broker.Step{}, false},
		{"o:k7m2qx:4", broker.Step{}, false},
		{"o:k7m2qx:-1", broker.Step{}, false},
		{"o:k7m2qx:0:1", broker.Step{}, false},
		{"o:bad:0", broker.Step{}, false},
		{"q:k7m2qx:0", broker.Step{}, false},
		{"a:k7m2qx:2:2:1", broker.Step{}, false},
		{"a:k7m2qx:0:1:5", broker.Step{}, false},
		{"a:k7m2qx:0:1:", broker.Step{}, false},
		{"a:k7m2qx:0:1:12345", broker.Step{}, false},
		{"hello", broker.Step{}, false},
		{"", broker.Step{}, false},
	}
	for _, tt := range tests {
		got, ok := legacyStep(tt.data)
		if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("legacyStep(%q) = %+v, %v; want %+v, %v", tt.data, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzDecodeButton holds decodeButton to what the handlers rely on, for
// any callback data: it never panics, and a step it reads names a valid
// question id, a prompt within the limit and options within theirs.
func FuzzDecodeButton(f *testing.F) {
	for _, s := range []string{"1o:k7m2qx.1/1:2", "1a:k7m2qx.4/4:1234", "/answer k7m2qx 2", "o:k7m2qx:0", "a:k7m2qx:0:1:13", "x:k7m2qx:3", "d:k7m2qx:0", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		s, ok := decodeButton(data)
		if !ok || s.Legacy != "" {
			return
		}
		if !broker.ValidID(s.Ref.ID) || s.Ref.Index < 0 || s.Ref.Index >= broker.MaxPrompts {
			t.Fatalf("%q reads as %+v", data, s)
		}
		for _, o := range s.Options {
			if o < 0 || o >= broker.MaxOptions {
				t.Fatalf("%q reads option %d", data, o)
			}
		}
	})
}
