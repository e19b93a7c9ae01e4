package web

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestViewSteps: the steps a card's controls carry send exactly the
// broker's commands: the form's pick with options and a note, free text,
// Skip, Not ready and Decline with their texts.
func TestViewSteps(t *testing.T) {
	no := false
	single := &broker.Question{ID: "k7m2qx", Status: broker.StatusPending, Prompts: []broker.Prompt{
		{Question: "Which?", Options: []broker.Option{{Label: "Search (Recommended)"}, {Label: "Browse"}, {Label: "Recent"}}},
	}}
	dialog := &broker.Question{ID: "k7m2qx", Status: broker.StatusPending, Prompts: []broker.Prompt{
		{Question: "a", MultiSelect: true, Options: []broker.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}},
		{Question: "b", Options: []broker.Option{{Label: "X"}, {Label: "Y"}}, Other: &no},
	}}
	tests := []struct {
		name      string
		q         *broker.Question
		i         int
		picked    []int
		text      string
		wantOther string
		wantHint  bool
	}{
		{"single with a note", single, 0, []int{0}, "and tags", "Other or note…", true},
		{"single, free text alone", single, 0, nil, "by date", "Other or note…", true},
		{"multi with a note", dialog, 0, []int{0, 2}, "nightly", "Other or note…", false},
		{"other false", dialog, 1, []int{1}, "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := render(tt.q, time.Now(), time.UTC)
			p := v.Prompts[tt.i]
			other, _ := control(p.Controls, broker.ControlOther)
			if other.Label != tt.wantOther || (p.Hint != "") != tt.wantHint || p.Submit != "Submit" {
				t.Fatalf("other %+v, hint %q, submit %q", other, p.Hint, p.Submit)
			}
			var numbers []int
			for _, o := range tt.picked {
				numbers = append(numbers, p.Options[o].Number)
			}
			_, got, ok, err := tap{Step: p.Pick, Options: numbers, Text: tt.text}.command()
			if want := broker.FormatOptionsOther(tt.q.Ref(tt.i), tt.picked, tt.text); err != nil || !ok || got != want {
				t.Fatalf("the form sends %q (%v, %v), the broker formats %q", got, ok, err, want)
			}
			if _, _, ok, err := (tap{Step: p.Pick}).command(); ok || err != nil {
				t.Fatalf("a form with nothing chosen sends a command (%v, %v)", ok, err)
			}
			skip, _ := control(p.Controls, broker.ControlSkip)
			if got := sends(t, skip.Step, "ignored"); skip.Label != "Skip" || got != broker.FormatSkip(tt.q.Ref(tt.i)) {
				t.Fatalf("skip %+v sends %q, want %q", skip, got, broker.FormatSkip(tt.q.Ref(tt.i)))
			}
			notReady, _ := control(v.Controls, broker.ControlNotReady)
			decline, _ := control(v.Controls, broker.ControlDecline)
			if got := sends(t, notReady.Step, "why now?"); notReady.Label != "Not ready" || !notReady.Text || got != broker.FormatDiscuss(tt.q.ID, "why now?") {
				t.Fatalf("not ready %+v sends %q", notReady, got)
			}
			if got := sends(t, decline.Step, ""); decline.Label != "Decline" || !decline.Text || got != broker.FormatDecline(tt.q.ID, "") {
				t.Fatalf("decline %+v sends %q", decline, got)
			}
		})
	}
	if o := render(single, time.Now(), time.UTC).Prompts[0].Options[0]; o.Label != "Search" || !o.Recommended || o.Number != 1 {
		t.Fatalf("recommended option shows as %+v, want the bare label and the badge flag", o)
	}
}

// TestTapRefused: a tap whose step or options are wrong is refused with
// words that say what is wrong.
func TestTapRefused(t *testing.T) {
	pick := broker.EncodeStep(broker.Step{Kind: broker.StepPick, Ref: broker.PromptRef{ID: "k7m2qx", Count: 1}})
	skip := broker.EncodeStep(broker.Step{Kind: broker.StepSkip, Ref: broker.PromptRef{ID: "k7m2qx", Count: 1}})
	for _, tc := range []struct {
		tap  tap
		want string
	}{
		{tap{Step: "hello"}, "step: invalid input: not a button step"},
		{tap{Step: "1o:k7m2qx.3/2:1"}, "names prompt 3 of a question with 2"},
		{tap{Step: pick, Options: []int{0}}, "options: 0 is not an option number (1–4)"},
		{tap{Step: pick, Options: []int{5}}, "options: 5 is not an option number (1–4)"},
		{tap{Step: pick, Options: []int{2, 2}}, "options: 2 is ticked twice"},
		{tap{Step: pick, Options: []int{1, 2, 3, 4, 1}}, "options: 5 ticked; a prompt has at most 4 options"},
		{tap{Step: skip, Options: []int{1}}, "options: only the answer form's step takes the options ticked"},
	} {
		if _, cmd, _, err := tc.tap.command(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v sends %q, %v; want an error saying %q", tc.tap, cmd, err, tc.want)
		}
	}
}

// control finds the control of kind k among cs.
func control(cs []controlView, k broker.ControlKind) (controlView, bool) {
	for _, c := range cs {
		if c.Kind == k {
			return c, true
		}
	}
	return controlView{}, false
}

// sends returns the command a control's step sends with text.
func sends(t *testing.T, step, text string) string {
	t.Helper()
	_, cmd, ok, err := tap{Step: step, Text: text}.command()
	if err != nil || !ok {
		t.Fatalf("step %q sends nothing: %v", step, err)
	}
	return cmd
}

// TestViewCardWords: the view says what the card says, for the words
// that differ from what the inbox wrote before the card: the expiry's
// day when it is not today, a dialog's title, what a prompt takes, and
// the controls' labels. The state line leaves out the other apps, which
// the copies line names with their states.
func TestViewCardWords(t *testing.T) {
	now := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	q := &broker.Question{ID: "k7m2qx", Status: broker.StatusPending, ExpiresAt: now.Add(20 * time.Hour),
		Targets: []broker.Target{{Channel: Name}, {Channel: "slack", Chat: "C1"}},
		Prompts: []broker.Prompt{
			{Question: "Which caches?", MultiSelect: true, Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
			{Question: "Anything else?"},
		}}
	v := render(q, now, time.UTC)
	if want := "Expires Fri 4 Dec 10:00 UTC"; v.Deadline != want {
		t.Errorf("state line %q, want %q", v.Deadline, want)
	}
	if v.Title != "2 questions, answered one after the other" || v.Progress != "0 of 2 answered" {
		t.Errorf("title %q, progress %q", v.Title, v.Progress)
	}
	multi, free := v.Prompts[0], v.Prompts[1]
	if multi.Expect != "Choose one or more; you can add a note" || free.Expect != "Answer in your own words" {
		t.Errorf("expect %q and %q", multi.Expect, free.Expect)
	}
	var labels []string
	for _, c := range append(append(multi.Controls, free.Controls...), v.Controls...) {
		labels = append(labels, c.Label)
	}
	if got, want := strings.Join(labels, "|"), "Submit|Other or note…|Skip|Answer…|Skip|Not ready|Decline"; got != want {
		t.Errorf("control labels %s, want %s", got, want)
	}
	if multi.Submit != "Submit" || free.Submit != "Submit" {
		t.Errorf("form buttons %q and %q", multi.Submit, free.Submit)
	}
}
