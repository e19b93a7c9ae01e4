package broker

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzParse: the parser never panics, and whatever it accepts formats
// back to a command that parses to the same thing: answers through
// FormatAnswer and FormatOptionsOther, toggles through FormatToggle,
// "/pending <id>" through FormatPending.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"/answer k7m2qx 2", "answer k7m2qx.2 1,3", "!answer@bot k7m2qx other x", "/decline k7m2qx why", "/pending", "2", "/answer k7m2qx.9 x", "",
		"/answer k7m2qx 1,3 other and tags", "/answer k7m2qx.2 2 OTHER a\nb", "/answer k7m2qx 1 other", "/answer k7m2qx 1 2 other other", "/answer k7m2qx skip",
		"/toggle k7m2qx 2", "/toggle k7m2qx.3 4", "toggle@bot K7M2QX.1 1", "/toggle k7m2qx 0", "/toggle k7m2qx.2 1 2", "/toggle k7m2qx", "/toggle k7m2qx +3",
		"/pending k7m2qx", "/pending k7m2qx.2", "/pending nope"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cmd, err := Parse(s)
		if err != nil {
			return
		}
		n := max(cmd.Prompt, 1)
		q := &Question{ID: cmd.ID, Prompts: make([]Prompt, max(n, 2))}
		if cmd.Prompt == 0 {
			q.Prompts = q.Prompts[:1]
		}
		switch cmd.Verb {
		case VerbToggle:
			if cmd.Option < 1 || cmd.Option > MaxOptions {
				t.Fatalf("%q → option %d, outside 1–%d", s, cmd.Option, MaxOptions)
			}
			again, err := Parse(FormatToggle(q.Ref(n-1), cmd.Option-1))
			if err != nil || again != cmd {
				t.Fatalf("%q → %+v → %v %+v", s, cmd, err, again)
			}
			return
		case VerbPending:
			if cmd.ID == "" {
				return
			}
			if again, err := Parse(FormatPending(cmd.ID)); err != nil || again != cmd {
				t.Fatalf("%q → %+v → %v %+v", s, cmd, err, again)
			}
			return
		case VerbAnswer:
		default:
			return
		}
		again, err := Parse(FormatAnswer(q.Ref(n-1), cmd.Choice))
		if err != nil || again.ID != cmd.ID || again.Choice != cmd.Choice {
			t.Fatalf("%q → %+v → %v %+v", s, cmd, err, again)
		}
		c := ParseChoice(cmd.Choice)
		if c.Kind != ChoiceNumbersOther || c.Text == "" {
			return
		}
		// Options and a note format back to the same options and note.
		idx := make([]int, len(c.Numbers))
		for k, v := range c.Numbers {
			if v < 1 {
				return
			}
			idx[k] = v - 1
		}
		back, err := Parse(FormatOptionsOther(q.Ref(n-1), idx, c.Text))
		if err != nil {
			t.Fatalf("%q: formatted options and note do not parse: %v", s, err)
		}
		if c2 := ParseChoice(back.Choice); c2.Kind != c.Kind || c2.Text != c.Text || !slices.Equal(c2.Numbers, c.Numbers) {
			t.Fatalf("%q → %+v → %q → %+v", s, c, back.Choice, c2)
		}
	})
}

// FuzzParsePromptRef: the reference parser never panics, and what it
// accepts formats back to the same reference.
func FuzzParsePromptRef(f *testing.F) {
	for _, s := range []string{"k7m2qx.2/3", "k7m2qx.1/1", "k7m2qx/3", "k7m2qx.4/3", "k7m2qx.2/9", "K7M2QX.2/3", "k7m2qx.2/03", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParsePromptRef(s)
		if err != nil {
			return
		}
		if !r.Valid() {
			t.Fatalf("%q → %+v, not a valid reference", s, r)
		}
		if again, err := ParsePromptRef(r.String()); err != nil || again != r {
			t.Fatalf("%q → %+v → %q → %v %+v", s, r, r.String(), err, again)
		}
	})
}

// FuzzValidate: validation never panics, and an accepted request's
// prompts can be answered by their first option's number.
func FuzzValidate(f *testing.F) {
	f.Add(`{"question":"Which?","options":[{"label":"A"},{"label":"B"}]}`)
	f.Add(`{"questions":[{"question":"a","multi_select":true,"options":[{"label":"x"},{"label":"y"}],"default":["x"]}]}`)
	f.Add(`{"question":"q","other":false}`)
	f.Fuzz(func(t *testing.T, body string) {
		var r AskRequest
		if json.Unmarshal([]byte(body), &r) != nil {
			return
		}
		prompts, err := validateRequest(&r)
		if err != nil {
			return
		}
		for _, p := range prompts {
			if len(p.Options) == 0 {
				continue
			}
			if _, err := Interpret(p, ParseChoice("1")); err != nil {
				t.Fatalf("valid prompt %+v refuses option 1: %v", p, err)
			}
		}
	})
}
