package broker

import (
	"fmt"
	"strings"
)

// Reading what a person typed or tapped as the answer to one prompt: which
// prompt a command is for, and what its choice means there.

// promptIndex picks the prompt a command is for: the numbered one, the
// only one, or the first unanswered one of a dialog (the first, when none
// is left, for the caller to refuse).
func promptIndex(q *Question, n int) (int, error) {
	if n > 0 {
		if n > len(q.Prompts) {
			if len(q.Prompts) == 1 {
				return 0, sayError(nil, "answer.one_question", q.ID, q.ID)
			}
			return 0, sayError(nil, "answer.prompt_range", q.ID, len(q.Prompts), q.ID, q.ID, len(q.Prompts))
		}
		return n - 1, nil
	}
	return max(q.NextOpen(), 0), nil
}

// Interpret turns a choice into the answer to prompt p, or an error that
// tells the person what would work. A skip is an answer (Skipped) on any
// prompt, of a dialog or a single question: the person chose not to say,
// which differs from declining the question. On a prompt with a field
// the answer is read as the field's type, and carries its Value
// (field_answer.go).
func Interpret(p Prompt, c Choice) (Answer, error) {
	if p.Field != nil {
		return interpretField(p, c)
	}
	return interpretChoice(p, c)
}

// interpretChoice is Interpret by the prompt's options and free text.
func interpretChoice(p Prompt, c Choice) (Answer, error) {
	a := Answer{Selected: []string{}}
	n := len(p.Options)
	switch c.Kind {
	case ChoiceSkip:
		a.Skipped = true
		return a, nil
	case ChoiceOther:
		if !p.AllowsOther() {
			return a, sayError(nil, "answer.no_free_text", choiceRange(n))
		}
		a.CustomText = c.Text
		return a, nil
	case ChoiceNumbers:
		if n == 0 {
			a.CustomText = joinNumbers(c.Numbers)
			return a, nil
		}
		return pickNumbers(p, c.Numbers, a)
	case ChoiceNumbersOther:
		switch {
		case n == 0:
			// No options to pick: the whole text is the answer.
			a.CustomText = c.Raw
			return a, nil
		case OptionIndex(p, c.Raw) >= 0:
			return interpretChoice(p, Choice{Kind: ChoiceText, Text: c.Raw, Raw: c.Raw})
		case !p.AllowsOther():
			return a, sayError(nil, "answer.no_note", choiceRange(n))
		case c.Text == "":
			return a, sayError(nil, "answer.note_missing", joinNumbers(c.Numbers))
		}
		a, err := pickNumbers(p, c.Numbers, a)
		if err != nil {
			return a, err
		}
		a.CustomText = c.Text
		return a, nil
	}
	if k := OptionIndex(p, c.Text); k >= 0 {
		a.Selected = append(a.Selected, p.Options[k].Label)
		a.Action, a.Prefill = p.Options[k].Action, p.Options[k].Prefill
		return a, nil
	}
	if p.MultiSelect && strings.Contains(c.Text, ",") {
		var idx []int
		for _, part := range strings.Split(c.Text, ",") {
			k := OptionIndex(p, part)
			if k < 0 {
				idx = nil
				break
			}
			idx = append(idx, k)
		}
		if idx != nil {
			for _, k := range SelectedOptions(idx) {
				a.Selected = append(a.Selected, p.Options[k].Label)
			}
			return a, nil
		}
	}
	if p.AllowsOther() {
		a.CustomText = c.Text
		return a, nil
	}
	return a, sayError(nil, "answer.not_option", c.Text, choiceRange(n))
}

// pickNumbers adds the options numbered nums (1-based) to a, or says
// which number is wrong.
func pickNumbers(p Prompt, nums []int, a Answer) (Answer, error) {
	n := len(p.Options)
	picked := SelectedOptions(nums)
	for _, k := range picked {
		if k < 1 || k > n {
			return a, sayError(nil, "answer.not_option_number", k, choiceRange(n))
		}
	}
	if len(picked) > 1 && !p.MultiSelect {
		return a, sayError(nil, "answer.one_answer", choiceRange(n))
	}
	for _, k := range picked {
		a.Selected = append(a.Selected, p.Options[k-1].Label)
	}
	if len(picked) == 1 {
		a.Action, a.Prefill = p.Options[picked[0]-1].Action, p.Options[picked[0]-1].Prefill
	}
	return a, nil
}

// choiceRange says what answers a prompt of n options: "1–3", or "a
// free-text answer" without options.
func choiceRange(n int) phrase {
	if n == 0 {
		return say("answer.free_text")
	}
	return say("answer.range", n)
}

func joinNumbers(ns []int) string {
	parts := make([]string, len(ns))
	for i, v := range ns {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ",")
}
