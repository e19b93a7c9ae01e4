package web

import (
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// TestViewCommands: the pieces the page joins are exactly the broker's
// commands, for options with a note, free text, Skip and Not ready.
func TestViewCommands(t *testing.T) {
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
		wantNote  bool
		wantOther bool
		wantHint  bool
	}{
		{"single with a note", single, 0, []int{0}, "and tags", true, true, true},
		{"multi with a note", dialog, 0, []int{0, 2}, "nightly", true, true, false},
		{"other false", dialog, 1, []int{1}, "", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := render(tt.q, time.Now(), time.UTC)
			p := v.Prompts[tt.i]
			if (p.Note != "") != tt.wantNote || (p.Other != "") != tt.wantOther || (p.Hint != "") != tt.wantHint {
				t.Fatalf("note %q, other %q, hint %q", p.Note, p.Other, p.Hint)
			}
			nums := ""
			for k, o := range tt.picked {
				if k > 0 {
					nums += ","
				}
				nums += string(rune('1' + o))
			}
			got := p.Choose + nums
			if tt.text != "" {
				got += p.Note + tt.text
			}
			if want := broker.FormatOptionsOther(tt.q.Ref(tt.i), tt.picked, tt.text); got != want {
				t.Fatalf("the page would send %q, the broker formats %q", got, want)
			}
			if p.Other != "" && p.Other+"x" != broker.FormatOther(tt.q.Ref(tt.i), "x") {
				t.Fatalf("other prefix %q", p.Other)
			}
			if p.Skip != broker.FormatSkip(tt.q.Ref(tt.i)) {
				t.Fatalf("skip %q, want %q", p.Skip, broker.FormatSkip(tt.q.Ref(tt.i)))
			}
			if v.Discuss != broker.FormatDiscuss(tt.q.ID, "") || v.Decline != broker.FormatDecline(tt.q.ID, "") {
				t.Fatalf("discuss %q, decline %q", v.Discuss, v.Decline)
			}
		})
	}
	if o := render(single, time.Now(), time.UTC).Prompts[0].Options[0]; o.Label != "Search" || !o.Recommended {
		t.Fatalf("recommended option shows as %+v, want the bare label and the badge flag", o)
	}
}
