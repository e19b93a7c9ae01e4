package web

import (
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// view is a question as the page shows it: its card (broker.Card),
// mapped in one pass. Every text in it is plain text that the page
// inserts with textContent; every control carries the step it takes
// (broker.EncodeStep), which the page posts back with what the person
// chose and typed, so the page never builds a command itself.
type view struct {
	ID     string        `json:"id"`
	Status broker.Status `json:"status"`
	// Title heads a dialog of several prompts (Card.Title).
	Title   string       `json:"title,omitempty"`
	Context string       `json:"context,omitempty"`
	Prompts []promptView `json:"prompts"`
	// Progress is "1 of 3 answered" in a dialog of several prompts.
	Progress string `json:"progress,omitempty"`
	// Deadline is the card's state line (Card.StateLine) without the
	// copies elsewhere, which Copies shows: "Expires 14:30 UTC · default:
	// SQLite".
	Deadline string `json:"deadline"`
	// Reminder is set while a reminder for a pending question stands.
	Reminder string `json:"reminder,omitempty"`
	// Controls are the question's own: Not ready, Decline and, where the
	// route allows it, Snooze. Pending questions only.
	Controls []controlView `json:"controls,omitempty"`
	// Outcome is what became of a resolved question (Card.Outcome).
	Outcome    string     `json:"outcome,omitempty"`
	AnsweredBy string     `json:"answered_by,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	// Resolved is ResolvedAt as the page shows it, in the reader's zone
	// and the form of every time on the card (broker.WhenText).
	Resolved string `json:"resolved,omitempty"`
	// Copies are the question's copies on the other targets and their
	// states, read when the page reads its state (absent from live
	// events, whose page keeps the copies it had).
	Copies []copyView `json:"copies,omitempty"`
	// Conversation is what was said on an ended conversation question
	// since it ended, and Say is set on such a question, whose card takes
	// a message to the agent's session (conversation.go).
	Conversation []lineView `json:"conversation,omitempty"`
	Say          bool       `json:"say,omitempty"`
	// Rank orders versions of one question: a page keeps the version with
	// the higher rank, so a late, older copy never replaces a newer one.
	Rank int `json:"rank"`
	legacyCommands
}

// controlView is one control of a card: its words, the step a tap
// takes (broker.EncodeStep), and whether it takes a text (a reason, a
// message), which the page posts with the step.
type controlView struct {
	Kind  broker.ControlKind `json:"kind"`
	Label string             `json:"label"`
	Step  string             `json:"step"`
	Text  bool               `json:"text,omitempty"`
}

// promptView is one prompt of a question.
type promptView struct {
	Header      string       `json:"header,omitempty"`
	Question    string       `json:"question"`
	MultiSelect bool         `json:"multi_select,omitempty"`
	Options     []optionView `json:"options,omitempty"`
	// Answer is the answer already given to this prompt of a dialog.
	Answer string `json:"answer,omitempty"`
	// Pick is the step the prompt's form sends on Submit: a pick
	// (broker.StepPick) that the page posts with the numbers of the
	// options ticked and the text of the box, the answer or a note
	// beside them. Absent when the prompt takes no answer here.
	Pick string `json:"pick,omitempty"`
	// Submit is the words of the form's button.
	Submit string `json:"submit,omitempty"`
	// Controls are the prompt's own (Card's): Submit on a multi-select
	// prompt, Other (whose label names the text box; absent when the
	// prompt takes no free text) and Skip. Open prompts only.
	Controls []controlView `json:"controls,omitempty"`
	// Hint explains the recommended option (Card's Hint).
	Hint string `json:"hint,omitempty"`
	// Expect says what the prompt takes when its options do not say it,
	// and Input is the native input a typed prompt's answer is typed in.
	Expect string     `json:"expect,omitempty"`
	Input  *inputView `json:"input,omitempty"`
	legacyPromptCommands
}

// inputView is the native input of a typed prompt's answer: its type
// ("number", "email", "url", "date", "datetime-local" or "text") and
// the limits the browser shows. The bridge checks the answer again and
// its refusal is shown beside the input.
type inputView struct {
	Type      string   `json:"type"`
	Min       *float64 `json:"min,omitempty"`
	Max       *float64 `json:"max,omitempty"`
	Step      string   `json:"step,omitempty"`
	MinLength *int     `json:"minlength,omitempty"`
	MaxLength *int     `json:"maxlength,omitempty"`
}

// inputOf is the native input of field f, or nil for one whose answers
// are its options.
func inputOf(f *broker.Field) *inputView {
	switch f.Type {
	case broker.FieldInteger:
		return &inputView{Type: "number", Min: f.Minimum, Max: f.Maximum, Step: "1"}
	case broker.FieldNumber:
		return &inputView{Type: "number", Min: f.Minimum, Max: f.Maximum, Step: "any"}
	case broker.FieldString:
		in := &inputView{Type: "text", MinLength: f.MinLength, MaxLength: f.MaxLength}
		switch f.Format {
		case broker.FormatEmail:
			in.Type = "email"
		case broker.FormatURI:
			in.Type = "url"
		case broker.FormatDate:
			in.Type = "date"
		case broker.FormatDateTime:
			in.Type = "datetime-local"
		}
		return in
	}
	return nil
}

// optionView is one option of a prompt.
type optionView struct {
	// Number is the option's 1-based number, which the page posts with
	// the prompt's pick step when the option is ticked.
	Number int `json:"number"`
	// Label is the option's label; the recommended one's without its
	// " (Recommended)" mark, which the page shows as a badge.
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
	// Selected is set on multi-select options ticked so far.
	Selected bool `json:"selected,omitempty"`
	// Edit is the text the note box takes when the option is picked
	// (broker.Option.Edit), for the person to change.
	Edit string `json:"edit,omitempty"`
	legacyOptionCommand
}

// msgSubmit is the words of a prompt form's button. The card names
// Submit only on multi-select prompts (their Submit control), whose
// label the form takes; a form of radio buttons or a text box needs the
// button too, in the card's words.
const msgSubmit = "control.submit"

// render builds the view of q as the inbox shows it at now, its times
// in loc: the question's card (broker.BuildCard) mapped in one pass. The
// inbox has no size limit, so the card is never shortened.
func render(q *broker.Question, now time.Time, loc *time.Location) view {
	return renderIn(q, now, loc, "")
}

// renderIn is render with the card's words in locale (lang.go chooses
// it; "" is English).
func renderIn(q *broker.Question, now time.Time, loc *time.Location, locale string) view {
	// No Channel: the inbox names the question's copies elsewhere with
	// how each stands (copies.go), so its card leaves out the chip that
	// only names them.
	c := broker.BuildCard(q, broker.Viewer{Now: now, Loc: loc, Locale: locale})
	v := view{
		ID:        c.ID,
		Status:    c.Status,
		Title:     c.Title,
		Context:   c.Context,
		Progress:  c.Progress,
		Deadline:  c.StateLine(),
		Controls:  controlViews(c.Controls),
		CreatedAt: q.CreatedAt,
		ExpiresAt: q.ExpiresAt,
	}
	answered := 0
	for _, p := range c.Prompts {
		if p.Answer != "" {
			answered++
		}
		v.Prompts = append(v.Prompts, renderPrompt(p, c.Locale))
	}
	v.legacyCommands = legacyOf(c)
	v.Rank = answered
	if c.Pending {
		if c.Reminded {
			v.Reminder = c.Reminder
			v.Rank += 100 * (q.RemindersSent + 1)
		}
		return v
	}
	v.Rank = 1 << 20
	if c.Outcome != nil {
		v.Outcome, v.AnsweredBy = c.Outcome.Text, c.Outcome.By
	}
	if !q.ResolvedAt.IsZero() {
		t := q.ResolvedAt
		v.ResolvedAt = &t
		v.Resolved = broker.WhenText(t, now, loc)
	}
	return v
}

// renderPrompt maps one prompt of a card. An open prompt's form sends
// a pick step when it has options to tick or a box to type in.
func renderPrompt(p broker.CardPrompt, locale string) promptView {
	pv := promptView{
		Header: p.Header, Question: p.Question, MultiSelect: p.MultiSelect, Answer: p.Answer,
		Hint: p.Hint, Expect: p.Expect, Controls: controlViews(p.Controls),
	}
	for _, o := range p.Options {
		pv.Options = append(pv.Options, optionView{
			Number: o.Number, Label: o.Label, Description: o.Description,
			Recommended: o.Recommended, Selected: o.Selected, Edit: o.Edit,
			legacyOptionCommand: legacyOptionCommand{Command: o.Command},
		})
	}
	if !p.Open {
		return pv
	}
	if _, other := p.Control(broker.ControlOther); len(p.Options) > 0 || other {
		pv.Pick = broker.EncodeStep(broker.Step{Kind: broker.StepPick, Ref: p.Ref})
		pv.Submit = i18n.For(locale).T(msgSubmit)
		if s, ok := p.Control(broker.ControlSubmit); ok {
			pv.Submit = s.Label
		}
	}
	if p.Field != nil {
		pv.Input = inputOf(p.Field)
	}
	pv.legacyPromptCommands = legacyPromptOf(p)
	return pv
}

// controlViews maps a card's controls.
func controlViews(cs []broker.Control) []controlView {
	var out []controlView
	for _, c := range cs {
		out = append(out, controlView{Kind: c.Kind, Label: c.Label, Step: c.Data, Text: c.TakesText})
	}
	return out
}
