package channeltest

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestWidgetProblems: the suite's check of widgets passes a Discord menu
// and Slack checkboxes as the channels draw them, and names the widget
// and the fault of each bad one.
func TestWidgetProblems(t *testing.T) {
	q := &broker.Question{ID: "k7m2qx", Prompts: dialogQuestion("").Questions}
	ref := broker.PromptRef{ID: q.ID, Index: 1, Count: 2}
	step := func(kind broker.StepKind, r broker.PromptRef) string {
		return broker.EncodeStep(broker.Step{Kind: kind, Ref: r})
	}
	regions := []Choice{{"1. Europe", "0"}, {"2. Americas", "1"}, {"3. Asia", "2"}}
	menu := func(data string, opts ...Choice) Widget {
		return Widget{Kind: "string select", ID: data, Data: data, Options: opts}
	}
	boxes := func(submit string, opts ...Choice) Widget {
		return Widget{Kind: "checkboxes", ID: "pick", Options: opts, Submit: &Button{Label: "Submit", Data: submit}}
	}
	discord := Limits{Data: 100, OptionValue: 100}
	slack := Limits{Data: 2000, ID: 255, OptionValue: 150}
	other := broker.PromptRef{ID: "zz9zz9", Index: 1, Count: 2}
	cases := []struct {
		name string
		w    Widget
		lim  Limits
		want string // "" when the widget is right
	}{
		{"a Discord menu", menu(step(broker.StepWithNote, ref), regions...), discord, ""},
		{"a Discord menu without a note", menu(step(broker.StepPick, ref), regions...), discord, ""},
		{"Slack checkboxes", boxes(step(broker.StepSubmit, ref), regions...), slack, ""},
		{"a menu id that is no step", menu("regions", regions...), discord, `sends "regions"`},
		{"a menu of another question", menu(step(broker.StepPick, other), regions...), discord, "want one of the 2 prompts of k7m2qx"},
		{"a menu that skips", menu(step(broker.StepSkip, ref), regions...), discord, "does not answer with the options chosen"},
		{"checkboxes without a Submit", Widget{Kind: "checkboxes", ID: "pick", Options: regions}, slack, "carries no step"},
		{"checkboxes whose button is no Submit", boxes(step(broker.StepSkip, ref), regions...), slack, "does not answer with the options chosen"},
		{"an option value beyond the prompt", menu(step(broker.StepPick, ref), Choice{"4. Africa", "3"}), discord, `value "3" names no option of prompt 2`},
		{"an option value that is a label", menu(step(broker.StepPick, ref), Choice{"1. Europe", "Europe"}), discord, "names no option"},
		{"an option naming another", menu(step(broker.StepPick, ref), Choice{"1. Europe", "1"}), discord, `names option 2, "Americas"`},
		{"an option twice", menu(step(broker.StepPick, ref), regions[0], regions[0]), discord, "offers option 1 twice"},
		{"no options", menu(step(broker.StepPick, ref)), discord, "offers no options"},
		{"an option left out", menu(step(broker.StepPick, ref), regions[0], regions[2]), discord, "leaves out 1 of the 3 options of prompt 2"},
		{"an option value over the limit", menu(step(broker.StepPick, ref), Choice{"1. Europe", strings.Repeat("0", 101)}), discord, "more than the platform's 100"},
		{"data over the limit", menu(step(broker.StepPick, ref), regions...), Limits{Data: 10, OptionValue: 100}, "more than the platform's 10"},
		{"an id over the limit", Widget{Kind: "checkboxes", ID: strings.Repeat("p", 256), Options: regions,
			Submit: &Button{Data: step(broker.StepSubmit, ref)}}, slack, "more than the platform's 255"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := widgetProblems(q, Message{ID: "m1", Widgets: []Widget{c.w}}, c.lim)
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("problems %q, want none", got)
			case c.want != "" && (len(got) == 0 || !strings.Contains(strings.Join(got, "\n"), c.want)):
				t.Errorf("problems %q, want one saying %q", got, c.want)
			case c.want != "" && !strings.Contains(got[0], c.w.Kind):
				t.Errorf("problem %q does not name the %s", got[0], c.w.Kind)
			}
		})
	}
}
