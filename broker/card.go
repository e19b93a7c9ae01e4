package broker

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/internal/i18n"
)

// Card is everything a person sees of a question at one moment, built
// once by the broker (BuildCard) and mapped by each channel to its own
// widgets in one pass: Telegram's text and keyboard, Slack's blocks,
// Discord's content and components, the web inbox's card. A channel adds
// markup and icons; every word, every state and every command comes from
// here, so a person reads the same story whichever app they use, and a
// new channel, language or control is written once.
//
// Texts are plain: a channel escapes them for its markup. Fitting a
// platform's limit is the card's too (Shorten).
type Card struct {
	ID     string
	Status Status
	// Locale is the language of the card's words (Viewer.Locale), for a
	// channel's own words around them: i18n.For(card.Locale).
	Locale string
	// Pending is Status == StatusPending: the card takes answers and
	// shows its controls.
	Pending bool
	// Title heads a dialog of several prompts: "3 questions, answered one
	// after the other"; "" for a question of one prompt.
	Title string
	// Context is the agent's context, shortened by Shorten (ContextCut).
	Context    string
	ContextCut bool
	Prompts    []CardPrompt
	// Current is the prompt that takes the next answer in order
	// (Question.NextOpen), -1 when none does.
	Current int
	// Progress is "1 of 3 answered" in a dialog of several prompts.
	Progress string
	// Chips are the question's state, in the order people read them:
	// expiry, default, votes, snooze, escalation, requester, copies
	// elsewhere. StateLine joins them.
	Chips []Chip
	// Reminder is the nudge a reminder posts; Reminded is set once a
	// reminder was sent, and a copy shows the nudge from then on.
	Reminder string
	Reminded bool
	// Controls act on the whole question: Not ready, Decline and, where
	// the route allows it, Snooze. Pending cards only.
	Controls []Control
	// Outcome is what became of a resolved question; nil while pending.
	Outcome *Outcome
}

// CardPrompt is one prompt of a card.
type CardPrompt struct {
	Ref         PromptRef
	Header      string
	Question    string
	MultiSelect bool
	Options     []CardOption
	// Hint explains the recommended mark when an option carries it.
	Hint string
	// Expect says what the prompt takes when its options do not say it:
	// a typed field's rule, "Choose one or more", "Answer in your own
	// words".
	Expect string
	// Field is the prompt's typed field, for channels with native inputs.
	Field *Field
	// Open is set while the prompt takes an answer; Answer is the answer
	// a dialog's prompt already has.
	Open   bool
	Answer string
	// Controls are the prompt's own: Submit (multi-select), Other (free
	// text, or a note beside options), Skip. Open prompts only.
	Controls []Control
	// Example is a typed command that answers the prompt, for a hint:
	// "/answer k7m2qx 1", "/answer k7m2qx 1,3", "/answer k7m2qx other
	// <your answer>".
	Example string
}

// CardOption is one option of a prompt.
type CardOption struct {
	// Number is the option's 1-based number, the one people type.
	Number int
	// Label is the option's label without its " (Recommended)" mark,
	// which Recommended carries.
	Label       string
	Description string
	Recommended bool
	// Selected is set on a multi-select option ticked so far.
	Selected bool
	// Edit is the text a note box takes when the option is picked
	// (Option.Edit), for the person to change.
	Edit string
	// Command is the typed command that picks the option alone; Data is
	// the button data of the step a tap takes: picking it, or ticking it
	// in a multi-select prompt.
	Command string
	Data    string
}

// Control is one button of a card that is not an option.
type Control struct {
	Kind  ControlKind
	Label string
	// Command is the exact command the control sends. A control that
	// TakesText sends Command, a space and the text, or Command alone
	// when the person gives none (Decline's reason, Not ready's message,
	// Other's answer); Other's Command ends with "other", so it needs the
	// text.
	Command   string
	TakesText bool
	// Data is the control's button data (EncodeStep).
	Data string
}

// ControlKind names a control.
type ControlKind string

// The controls of a card.
const (
	ControlSubmit   ControlKind = "submit"
	ControlOther    ControlKind = "other"
	ControlSkip     ControlKind = "skip"
	ControlNotReady ControlKind = "not_ready"
	ControlDecline  ControlKind = "decline"
	ControlSnooze   ControlKind = "snooze"
)

// Chip is one piece of a card's state line.
type Chip struct {
	Kind ChipKind
	Text string
}

// ChipKind names a chip.
type ChipKind string

// The chips of a card, in StateLine's order.
const (
	ChipExpiry    ChipKind = "expiry"
	ChipDefault   ChipKind = "default"
	ChipVotes     ChipKind = "votes"
	ChipSnoozed   ChipKind = "snoozed"
	ChipEscalated ChipKind = "escalated"
	ChipAskedBy   ChipKind = "asked_by"
	ChipElsewhere ChipKind = "elsewhere"
)

// Outcome is what became of a resolved question.
type Outcome struct {
	// Text is the line that replaces the controls: "Answered by Ana at
	// 14:02: Postgres" (OutcomeText).
	Text string
	// By names who answered, declined or skipped; "" otherwise.
	By string
}

// Viewer is who reads a card, and when: the time and zone its times are
// shown in, the channel whose copy it is (the others are "copies
// elsewhere"; without a Channel the card has no such chip, for a channel
// that lists the copies itself), and the language its words are in.
type Viewer struct {
	Now     time.Time
	Loc     *time.Location
	Channel string
	// Locale is a locale as i18n.Parse returns it ("de", "ja", "en-XA");
	// "" or an unknown one is English. The commands stay English.
	Locale string
}

// BuildCard returns the card of q as v sees it.
func BuildCard(q *Question, v Viewer) Card {
	w := i18n.For(v.Locale)
	loc := v.Loc
	if loc == nil {
		loc = time.UTC
	}
	c := Card{
		ID:      q.ID,
		Status:  q.Status,
		Pending: q.Status == StatusPending,
		Context: q.Context,
		Current: -1,
		Locale:  w.Locale(),
	}
	if n := len(q.Prompts); n > 1 {
		c.Title = w.T("card.title", n)
	}
	answered := 0
	for i := range q.Prompts {
		cp := buildPrompt(w, q, i, c.Pending)
		if cp.Answer != "" {
			answered++
		}
		c.Prompts = append(c.Prompts, cp)
	}
	if c.Pending {
		c.Current = q.NextOpen()
	}
	if len(q.Prompts) > 1 {
		c.Progress = w.T("card.progress", answered, len(q.Prompts))
	}
	c.Chips = chips(w, q, v.Now, loc, v.Channel)
	if !c.Pending {
		c.Outcome = &Outcome{Text: outcomeText(w, q, loc)}
		if q.AnsweredBy != nil {
			c.Outcome.By = whoText(w, q.AnsweredBy)
		}
		return c
	}
	c.Reminder, c.Reminded = reminderText(w, q, v.Now, loc), q.RemindersSent > 0
	c.Controls = []Control{
		{Kind: ControlNotReady, Label: w.T("control.not_ready"), Command: FormatDiscuss(q.ID, ""), TakesText: true,
			Data: EncodeStep(Step{Kind: StepNotReady, Ref: questionRef(q)})},
		{Kind: ControlDecline, Label: w.T("control.decline"), Command: FormatDecline(q.ID, ""), TakesText: true,
			Data: EncodeStep(Step{Kind: StepDecline, Ref: questionRef(q)})},
	}
	if cmd := FormatSnooze(q); cmd != "" {
		c.Controls = append(c.Controls, Control{Kind: ControlSnooze, Label: w.T("control.snooze"), Command: cmd,
			Data: EncodeStep(Step{Kind: StepSnooze, Ref: questionRef(q)})})
	}
	return c
}

// questionRef is the reference a question-wide step carries: the first
// prompt, which names the question and its prompt count.
func questionRef(q *Question) PromptRef { return q.Ref(0) }

func buildPrompt(w *i18n.Printer, q *Question, i int, pending bool) CardPrompt {
	p, ref := q.Prompts[i], q.Ref(i)
	cp := CardPrompt{Ref: ref, Header: p.Header, Question: p.Question, MultiSelect: p.MultiSelect, Field: p.Field}
	if a := q.Given(i); a != nil {
		cp.Answer = answerValue(w, *a)
	}
	sel := SelectedOptions(q.Selections[i])
	for k, o := range p.Options {
		co := CardOption{
			Number: k + 1, Label: o.Label, Description: o.Description,
			Selected: slices.Contains(sel, k), Edit: o.Edit,
			Command: FormatOption(ref, k),
		}
		if p.Recommended(k) {
			co.Label, co.Recommended = BareLabel(o.Label), true
		}
		kind := StepOption
		if p.MultiSelect {
			kind = StepToggle
		}
		co.Data = EncodeStep(Step{Kind: kind, Ref: ref, Options: []int{k}})
		cp.Options = append(cp.Options, co)
	}
	cp.Open = pending && cp.Answer == ""
	if !cp.Open {
		return cp
	}
	if p.Recommended(0) {
		cp.Hint = w.T("hint.recommended")
	}
	cp.Expect = expectWords(w, p)
	switch {
	case len(p.Options) == 0:
		cp.Example = FormatOther(ref, w.T("example.your_answer"))
	case p.MultiSelect:
		cp.Example = FormatAnswer(ref, "1,3")
		if len(p.Options) < 3 {
			cp.Example = FormatAnswer(ref, "1,2")
		}
	default:
		cp.Example = FormatOption(ref, 0)
	}
	if p.MultiSelect && len(p.Options) > 0 {
		cp.Controls = append(cp.Controls, Control{Kind: ControlSubmit, Label: w.T("control.submit"),
			Command: FormatOption(ref, sel...), Data: EncodeStep(Step{Kind: StepSubmit, Ref: ref, Options: sel})})
	}
	if p.AllowsOther() {
		label := w.T("control.other")
		if len(p.Options) == 0 {
			label = w.T("control.answer")
		}
		cp.Controls = append(cp.Controls, Control{Kind: ControlOther, Label: label,
			Command: FormatAnswer(ref, OtherWord), TakesText: true, Data: EncodeStep(Step{Kind: StepOther, Ref: ref})})
	}
	cp.Controls = append(cp.Controls, Control{Kind: ControlSkip, Label: w.T("control.skip"),
		Command: FormatSkip(ref), Data: EncodeStep(Step{Kind: StepSkip, Ref: ref})})
	return cp
}

// expectWords says what an open prompt takes when its options do not
// say it: the field's rule first, then the shape of the prompt.
func expectWords(w *i18n.Printer, p Prompt) string {
	if e := expectText(w, p); e != "" {
		return e
	}
	switch {
	case p.Field != nil && p.Field.Type != FieldMultiEnum:
		return ""
	case p.MultiSelect && len(p.Options) > 0 && p.AllowsOther():
		return w.T("expect.choose_note")
	case p.MultiSelect && len(p.Options) > 0:
		return w.T("expect.choose")
	case len(p.Options) == 0:
		return w.T("expect.own_words")
	}
	return ""
}

// chips is the state line of q: when it expires (with the date when that
// is not today), what a timeout applies, the policy's state, who asked,
// and where else the question was sent.
func chips(w *i18n.Printer, q *Question, now time.Time, loc *time.Location, channel string) []Chip {
	out := []Chip{{ChipExpiry, w.T("chip.expires", whenText(w, q.ExpiresAt, now, loc))}}
	if defs := defaultsText(q); defs != "" {
		out = append(out, Chip{ChipDefault, w.T("chip.default", defs)})
	}
	if v := votesText(w, q); v != "" {
		out = append(out, Chip{ChipVotes, v})
	}
	if n := len(q.State.Snoozes); n > 0 {
		out = append(out, Chip{ChipSnoozed, w.T("chip.snoozed", whoText(w, &q.State.Snoozes[n-1].By))})
	}
	if e := escalatedText(w, q); e != "" {
		out = append(out, Chip{ChipEscalated, e})
	}
	if len(q.RequestedBy) > 0 {
		who := make([]string, len(q.RequestedBy))
		for i, e := range q.RequestedBy {
			who[i] = strings.TrimPrefix(e, "person:")
		}
		out = append(out, Chip{ChipAskedBy, w.T("chip.asked_by", strings.Join(who, ", "))})
	}
	if e := elsewhere(w, q, channel); e != "" {
		out = append(out, Chip{ChipElsewhere, e})
	}
	return out
}

// elsewhere names the other channels q was sent to: "also in telegram,
// web"; "" when the reader's channel is the only one, or unknown.
func elsewhere(w *i18n.Printer, q *Question, channel string) string {
	if channel == "" {
		return ""
	}
	var names []string
	for _, t := range q.Targets {
		if t.Channel != channel && !slices.Contains(names, t.Channel) {
			names = append(names, t.Channel)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return w.T("chip.elsewhere", strings.Join(names, ", "))
}

// whenText shows t as people read a time: "14:30 UTC" today, "Fri 4 Dec
// 14:30 UTC" on another day of the year, "4 Dec 2027 14:30 UTC" in
// another year. A zero now shows the time alone.
func whenText(w *i18n.Printer, t, now time.Time, loc *time.Location) string {
	t = t.In(loc)
	if now.IsZero() {
		return t.Format(timeFormat)
	}
	now = now.In(loc)
	day, month := strconv.Itoa(t.Day()), w.T("month."+strconv.Itoa(int(t.Month())))
	switch {
	case sameDay(t, now):
		return t.Format(timeFormat)
	case t.Year() == now.Year():
		return w.T("when.this_year", w.T("weekday."+strconv.Itoa(int(t.Weekday()))), day, month, t.Format(timeFormat))
	}
	return w.T("when.other_year", day, month, strconv.Itoa(t.Year()), t.Format(timeFormat))
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// StateLine joins the chips: "Expires 14:30 UTC · default: SQLite · 1 of
// 2: Allow by Ana".
func (c Card) StateLine() string {
	parts := make([]string, len(c.Chips))
	for i, ch := range c.Chips {
		parts[i] = ch.Text
	}
	return strings.Join(parts, " · ")
}

// Control returns the card's question-wide control of kind k.
func (c Card) Control(k ControlKind) (Control, bool) {
	return findControl(c.Controls, k)
}

// Control returns the prompt's control of kind k.
func (p CardPrompt) Control(k ControlKind) (Control, bool) {
	return findControl(p.Controls, k)
}

func findControl(cs []Control, k ControlKind) (Control, bool) {
	for _, c := range cs {
		if c.Kind == k {
			return c, true
		}
	}
	return Control{}, false
}
