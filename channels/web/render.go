package web

import (
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// view is a question as the page shows it. Every text in it is plain text
// that the page inserts with textContent; every command is the exact string
// the broker's formatters give, so the page never builds a second encoding.
type view struct {
	ID      string        `json:"id"`
	Status  broker.Status `json:"status"`
	Context string        `json:"context,omitempty"`
	Prompts []promptView  `json:"prompts"`
	// Progress is "1 of 3 answered" in a dialog of several prompts.
	Progress string `json:"progress,omitempty"`
	// Deadline is broker.DeadlineText: "Expires 14:30 UTC · default: SQLite".
	Deadline string `json:"deadline"`
	// Reminder is set while a reminder for a pending question stands.
	Reminder string `json:"reminder,omitempty"`
	// Decline is the command that declines the question without a reason;
	// a reason is appended after a space (broker.FormatDecline).
	Decline string `json:"decline,omitempty"`
	// Discuss is the command that says "not ready to answer" without a
	// message; a message is appended after a space (broker.FormatDiscuss).
	Discuss string `json:"discuss,omitempty"`
	// Snooze is the /snooze command of a question whose route allows
	// snoozing (broker.FormatSnooze); empty otherwise.
	Snooze string `json:"snooze,omitempty"`
	// Outcome is broker.OutcomeText for a resolved question.
	Outcome    string     `json:"outcome,omitempty"`
	AnsweredBy string     `json:"answered_by,omitempty"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  time.Time  `json:"expires_at"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
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
}

// promptView is one prompt of a question.
type promptView struct {
	Header      string       `json:"header,omitempty"`
	Question    string       `json:"question"`
	MultiSelect bool         `json:"multi_select,omitempty"`
	Options     []optionView `json:"options,omitempty"`
	// Answer is the answer already given to this prompt of a dialog.
	Answer string `json:"answer,omitempty"`
	// Choose is the command prefix for picking options: the page appends
	// the 1-based option numbers joined by commas, which is exactly
	// broker.FormatOption(q.Ref(i), picked...).
	Choose string `json:"choose,omitempty"`
	// Note joins the picked options and the text typed in the Other box
	// (absent when the prompt takes no free text): Choose + numbers +
	// Note + text is exactly broker.FormatOptionsOther(q.Ref(i), picked, text).
	Note string `json:"note,omitempty"`
	// Other is the command prefix for a free-text answer (absent when the
	// prompt accepts none): the page appends the text, which is exactly
	// broker.FormatOther(q.Ref(i), text).
	Other string `json:"other,omitempty"`
	// Skip is broker.FormatSkip(q.Ref(i)).
	Skip string `json:"skip,omitempty"`
	// Hint explains the recommended option (broker.RecommendedHint).
	Hint string `json:"hint,omitempty"`
	// Expect says what a typed prompt takes (broker.ExpectText), and
	// Input is the native input its answer is typed in.
	Expect string     `json:"expect,omitempty"`
	Input  *inputView `json:"input,omitempty"`
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
	// Label is the option's label; the recommended one's without its
	// " (Recommended)" mark, which the page shows as a badge.
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Recommended bool   `json:"recommended,omitempty"`
	// Command is broker.FormatOption(q.Ref(i), k).
	Command string `json:"command"`
	// Selected is set on multi-select options toggled so far.
	Selected bool `json:"selected,omitempty"`
	// Edit is the text the note box takes when the option is picked
	// (broker.Option.Edit), for the person to change.
	Edit string `json:"edit,omitempty"`
}

// render builds the view of q; now and loc place the countdown of a
// reminder sent for it and the times.
func render(q *broker.Question, now time.Time, loc *time.Location) view {
	v := view{
		ID:        q.ID,
		Status:    q.Status,
		Context:   q.Context,
		Deadline:  broker.DeadlineText(q, loc),
		CreatedAt: q.CreatedAt,
		ExpiresAt: q.ExpiresAt,
	}
	answered := 0
	for i, p := range q.Prompts {
		pv := promptView{Header: p.Header, Question: p.Question, MultiSelect: p.MultiSelect}
		given := q.Given(i)
		if given != nil {
			answered++
			pv.Answer = broker.AnswerValue(*given)
		}
		selected := map[int]bool{}
		for _, k := range q.Selections[i] {
			selected[k] = true
		}
		for k, o := range p.Options {
			ov := optionView{
				Label:       o.Label,
				Description: o.Description,
				Command:     broker.FormatOption(q.Ref(i), k),
				Selected:    selected[k],
				Edit:        o.Edit,
			}
			if p.Recommended(k) {
				ov.Label, ov.Recommended = broker.BareLabel(o.Label), true
			}
			pv.Options = append(pv.Options, ov)
		}
		if q.Status == broker.StatusPending && given == nil {
			if len(p.Options) > 0 {
				pv.Choose = broker.FormatAnswer(q.Ref(i), "")
				if p.Recommended(0) {
					pv.Hint = broker.RecommendedHint
				}
			}
			if p.AllowsOther() {
				pv.Other = broker.FormatOther(q.Ref(i), "")
				if len(p.Options) > 0 {
					pv.Note = " " + broker.OtherWord + " "
				}
			}
			pv.Skip = broker.FormatSkip(q.Ref(i))
			if p.Field != nil {
				pv.Expect, pv.Input = broker.ExpectText(p), inputOf(p.Field)
			}
		}
		v.Prompts = append(v.Prompts, pv)
	}
	if len(q.Prompts) > 1 {
		v.Progress = fmt.Sprintf("%d of %d answered", answered, len(q.Prompts))
	}
	v.Rank = answered
	if q.Status == broker.StatusPending {
		v.Decline = broker.FormatDecline(q.ID, "")
		v.Discuss = broker.FormatDiscuss(q.ID, "")
		v.Snooze = broker.FormatSnooze(q)
		if q.RemindersSent > 0 {
			v.Reminder = broker.ReminderText(q, now, loc)
			v.Rank += 100 * (q.RemindersSent + 1)
		}
		return v
	}
	v.Rank = 1 << 20
	v.Outcome = broker.OutcomeText(q, loc)
	if q.AnsweredBy != nil {
		v.AnsweredBy = broker.WhoText(q.AnsweredBy)
	}
	if !q.ResolvedAt.IsZero() {
		t := q.ResolvedAt
		v.ResolvedAt = &t
	}
	return v
}
