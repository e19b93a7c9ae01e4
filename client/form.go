package client

import (
	"context"
	"fmt"
)

// Form builds a dialog of up to four typed prompts, asks it with AskForm
// and reads each answer back by its question text.
//
//	f := client.NewForm().
//		Choice("Which database?", "Postgres", "SQLite").
//		YesNo("Run the migrations now?").
//		Text("Anything else we should know?")
//	ans, err := c.AskForm(ctx, f)
//	db, now := ans.Choice("Which database?"), ans.YesNo("Run the migrations now?")
type Form struct {
	// Question holds the rest of the request: session, route, timeout,
	// context, responders, callback. Its prompt fields are ignored.
	Question Question
	prompts  []Prompt
}

// NewForm returns an empty form.
func NewForm() *Form { return &Form{} }

// Choice adds a single-choice prompt with 2–4 options (no free text).
func (f *Form) Choice(question string, labels ...string) *Form {
	return f.add(Prompt{Question: question, Options: options(labels), Other: ptr(false)})
}

// MultiChoice adds a prompt where several of 2–4 options may be chosen.
func (f *Form) MultiChoice(question string, labels ...string) *Form {
	return f.add(Prompt{Question: question, Options: options(labels), MultiSelect: true, Other: ptr(false)})
}

// YesNo adds a yes/no prompt.
func (f *Form) YesNo(question string) *Form {
	return f.Choice(question, "Yes", "No")
}

// Text adds a free-text prompt.
func (f *Form) Text(question string) *Form {
	return f.add(Prompt{Question: question})
}

// Default sets the answer used for the last added prompt when the form
// times out (an option label, or text).
func (f *Form) Default(values ...string) *Form {
	if n := len(f.prompts); n > 0 {
		f.prompts[n-1].Default = values
	}
	return f
}

func (f *Form) add(p Prompt) *Form {
	f.prompts = append(f.prompts, p)
	return f
}

func options(labels []string) []Option {
	out := make([]Option, len(labels))
	for i, l := range labels {
		out[i] = Option{Label: l}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// MaxFormPrompts is how many prompts one dialog may hold.
const MaxFormPrompts = 4

// AskForm asks the form as one dialog and blocks like Ask: no error when
// every prompt has an answer, a person's or its default. With a
// *TimeoutError the answers people gave and the defaults used are still
// readable.
func (c *Client) AskForm(ctx context.Context, f *Form) (*FormAnswers, error) {
	if len(f.prompts) == 0 || len(f.prompts) > MaxFormPrompts {
		return nil, fmt.Errorf("askbridge: a form holds 1 to %d prompts, this one has %d", MaxFormPrompts, len(f.prompts))
	}
	q := f.Question
	q.Question, q.Options, q.Header, q.MultiSelect, q.Other, q.Default, q.Field = "", nil, "", false, nil, nil, nil
	q.Prompts = f.prompts
	res, err := c.Ask(ctx, q)
	if res == nil {
		return nil, err
	}
	return &FormAnswers{Result: res}, err
}

// FormAnswers reads the answers of a form by question text. A prompt
// that was skipped or not answered reads as the zero value.
type FormAnswers struct {
	Result *Result
}

// Choice returns the chosen label (or free text) of a prompt.
func (a *FormAnswers) Choice(question string) string {
	ans := a.Result.Answers[question]
	if len(ans.Selected) > 0 {
		return ans.Selected[0]
	}
	return ans.CustomText
}

// Choices returns the chosen labels of a multi-choice prompt.
func (a *FormAnswers) Choices(question string) []string {
	return a.Result.Answers[question].Selected
}

// YesNo reports whether Yes was chosen.
func (a *FormAnswers) YesNo(question string) bool { return a.Choice(question) == "Yes" }

// Text returns the text typed for a prompt (or the chosen label).
func (a *FormAnswers) Text(question string) string {
	ans := a.Result.Answers[question]
	if ans.CustomText != "" {
		return ans.CustomText
	}
	if len(ans.Selected) > 0 {
		return ans.Selected[0]
	}
	return ""
}

// Defaulted reports whether the prompt took its default because nobody
// answered it in time.
func (a *FormAnswers) Defaulted(question string) bool { return a.Result.Answers[question].Defaulted }

// AnsweredBy names the person who answered (or skipped) the prompt, or is
// nil when nobody did.
func (a *FormAnswers) AnsweredBy(question string) *Responder {
	return a.Result.Answers[question].AnsweredBy
}

// Skipped reports whether the person skipped the prompt.
func (a *FormAnswers) Skipped(question string) bool { return a.Result.Answers[question].Skipped }
