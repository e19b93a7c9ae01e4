package broker

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Step is what a tap on a card's button does: pick options, tick one,
// submit the ticks, open a box for free text, skip, decline, and so on,
// on one prompt of one question. Every channel's buttons carry a Step as
// their data, written by EncodeStep and read back by DecodeStep, so one
// encoding serves Telegram's callback data, Slack's button values and
// Discord's custom ids alike.
type Step struct {
	Kind StepKind
	// Ref is the prompt the step acts on; question-wide steps (Decline,
	// Not ready, Snooze) carry the question's first prompt.
	Ref PromptRef
	// Options are the 0-based options the step carries: the one an
	// Option or Toggle button picks, the ticks a Submit sends, those a
	// note goes with.
	Options []int
	// Legacy is the command a button posted before this encoding carried
	// (its data was the command itself, "/answer k7m2qx 2"); Command
	// returns it as it was. Read for one release.
	Legacy string
}

// StepKind names what a step does.
type StepKind byte

// The kinds of step. The byte is the kind's letter in the encoding.
const (
	// StepOption picks Options and answers with them.
	StepOption StepKind = 'o'
	// StepToggle ticks or unticks Options[0] of a multi-select prompt.
	StepToggle StepKind = 't'
	// StepSubmit answers a multi-select prompt with the ticks it carries.
	StepSubmit StepKind = 'd'
	// StepPick answers with options chosen in the platform's own control
	// (a checkbox group, a select menu): the channel sets Options from
	// the platform's payload.
	StepPick StepKind = 'p'
	// StepOther opens a box for free text: the Other answer, or a note
	// beside Options.
	StepOther StepKind = 'x'
	// StepNote opens a box for text that may go with options chosen in
	// it or after it: Discord's "Other or note…" form, and the note box
	// of Telegram buttons posted before its one reply box.
	StepNote StepKind = 'n'
	// StepWithNote sends Options (or none) with the note the channel
	// holds for the prompt.
	StepWithNote StepKind = 'a'
	// StepDropNote forgets the note the channel holds.
	StepDropNote StepKind = 'r'
	// StepSkip skips the prompt.
	StepSkip StepKind = 's'
	// StepNotReady says the person is not ready to answer (discuss).
	StepNotReady StepKind = 'w'
	// StepDecline declines the question.
	StepDecline StepKind = 'c'
	// StepSnooze moves the deadline as the route's policy allows.
	StepSnooze StepKind = 'z'
)

// stepVersion leads every encoded step, so that a later encoding can
// still read buttons posted with this one.
const stepVersion = '1'

// MaxStepData is the longest EncodeStep returns: within Telegram's 64
// bytes of callback data, the smallest limit of the three platforms.
const MaxStepData = 2 + 1 + idLength + 4 + 1 + MaxOptions

// ErrNotStep is returned by DecodeStep for data that is neither a step
// nor a command: a channel's own button, or data from elsewhere.
var ErrNotStep = fmt.Errorf("%w: not a button step", ErrInvalid)

func (k StepKind) known() bool {
	switch k {
	case StepOption, StepToggle, StepSubmit, StepPick, StepOther, StepNote, StepWithNote, StepDropNote,
		StepSkip, StepNotReady, StepDecline, StepSnooze:
		return true
	}
	return false
}

// EncodeStep writes s as button data: "1o:k7m2qx.1/1:2" is option 2 of a
// question of one prompt, "1c:k7m2qx.1/3" declines a dialog of three.
// Options are written as their 1-based digits. The result is at most
// MaxStepData bytes for any valid step.
func EncodeStep(s Step) string {
	var b strings.Builder
	b.Grow(MaxStepData)
	b.WriteByte(stepVersion)
	b.WriteByte(byte(s.Kind))
	b.WriteByte(':')
	b.WriteString(s.Ref.String())
	if len(s.Options) > 0 {
		b.WriteByte(':')
		for _, o := range s.Options {
			b.WriteString(strconv.Itoa(o + 1))
		}
	}
	return b.String()
}

// DecodeStep reads button data written by EncodeStep, or by an earlier
// bridge whose buttons carried their command ("/answer k7m2qx 2", with
// Legacy set), or says what is wrong with it. Data that is no step at all
// gives ErrNotStep.
func DecodeStep(data string) (Step, error) {
	if strings.HasPrefix(data, "/") {
		if _, err := Parse(data); err != nil {
			if errors.Is(err, ErrNotCommand) {
				return Step{}, ErrNotStep
			}
			return Step{}, fmt.Errorf("button data %q: %w", data, err)
		}
		return Step{Legacy: data}, nil
	}
	if len(data) < 3 || data[0] != stepVersion || data[2] != ':' {
		return Step{}, ErrNotStep
	}
	s := Step{Kind: StepKind(data[1])}
	if !s.Kind.known() {
		return Step{}, fmt.Errorf("%w: button data %q: no step is written %q", ErrInvalid, data, data[1:2])
	}
	ref, opts, _ := strings.Cut(data[3:], ":")
	r, err := ParsePromptRef(ref)
	if err != nil {
		return Step{}, fmt.Errorf("button data %q: %w", data, err)
	}
	s.Ref = r
	if len(opts) > MaxOptions {
		return Step{}, fmt.Errorf("%w: button data %q carries %d options; a prompt has at most %d", ErrInvalid, data, len(opts), MaxOptions)
	}
	for i := range len(opts) {
		c := opts[i]
		if c < '1' || c > '0'+MaxOptions {
			return Step{}, fmt.Errorf("%w: button data %q: options are the digits 1–%d", ErrInvalid, data, MaxOptions)
		}
		s.Options = append(s.Options, int(c-'1'))
	}
	switch {
	case (s.Kind == StepOption || s.Kind == StepToggle) && len(s.Options) == 0:
		return Step{}, fmt.Errorf("%w: button data %q names no option", ErrInvalid, data)
	case s.Kind == StepToggle && len(s.Options) > 1:
		return Step{}, fmt.Errorf("%w: button data %q ticks more than one option", ErrInvalid, data)
	}
	return s, nil
}

// Command returns the command the step sends with text (Decline's
// reason, Not ready's message, Other's answer, the note a StepWithNote
// or StepOther sends beside its options; "" for none), and false for a
// step that only changes the interface: opening a box, dropping a note,
// Submit or Pick with nothing chosen, Other without text.
func (s Step) Command(text string) (string, bool) {
	if s.Legacy != "" {
		return s.Legacy, true
	}
	text = strings.TrimSpace(text)
	switch s.Kind {
	case StepOption:
		return FormatOptionsOther(s.Ref, s.Options, text), true
	case StepToggle:
		return FormatToggle(s.Ref, s.Options[0]), true
	case StepSubmit, StepPick:
		if len(s.Options) == 0 && text == "" {
			return "", false
		}
		return FormatOptionsOther(s.Ref, SelectedOptions(s.Options), text), true
	case StepOther, StepWithNote:
		if text == "" && len(s.Options) == 0 {
			return "", false
		}
		return FormatOptionsOther(s.Ref, s.Options, text), true
	case StepSkip:
		return FormatSkip(s.Ref), true
	case StepNotReady:
		return FormatDiscuss(s.Ref.ID, text), true
	case StepDecline:
		return FormatDecline(s.Ref.ID, text), true
	case StepSnooze:
		return "/snooze " + s.Ref.ID, true
	}
	return "", false
}
