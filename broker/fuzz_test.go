package broker

import (
	"encoding/json"
	"slices"
	"testing"
)

// FuzzParse: the parser never panics, and whatever it accepts formats
// back to a command that parses to the same thing.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"/answer k7m2qx 2", "answer k7m2qx.2 1,3", "!answer@bot k7m2qx other x", "/decline k7m2qx why", "/pending", "2", "/answer k7m2qx.9 x", "",
		"/answer k7m2qx 1,3 other and tags", "/answer k7m2qx.2 2 OTHER a\nb", "/answer k7m2qx 1 other", "/answer k7m2qx 1 2 other other", "/answer k7m2qx skip"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cmd, err := Parse(s)
		if err != nil || cmd.Verb != VerbAnswer {
			return
		}
		n := max(cmd.Prompt, 1)
		q := &Question{ID: cmd.ID, Prompts: make([]Prompt, max(n, 2))}
		if cmd.Prompt == 0 {
			q.Prompts = q.Prompts[:1]
		}
		again, err := Parse(FormatAnswer(q, n-1, cmd.Choice))
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
		back, err := Parse(FormatOptionsOther(q, n-1, idx, c.Text))
		if err != nil {
			t.Fatalf("%q: formatted options and note do not parse: %v", s, err)
		}
		if c2 := ParseChoice(back.Choice); c2.Kind != c.Kind || c2.Text != c.Text || !slices.Equal(c2.Numbers, c.Numbers) {
			t.Fatalf("%q → %+v → %q → %+v", s, c, back.Choice, c2)
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
