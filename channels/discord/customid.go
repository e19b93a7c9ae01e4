package discord

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// Discord's limits on messages and components.
const (
	maxCustomID      = 100
	maxContent       = 2000
	maxRows          = 5
	maxButtonsPerRow = 5
	maxButtonLabel   = 80
	maxSelectText    = 100
	maxModalTitle    = 45
	maxTextInput     = 4000
)

// Every component's custom id, and every form's, is a broker.Step
// written by broker.EncodeStep ("1o:k7m2qx.1/1:2"), at most
// broker.MaxStepData characters. Buttons that pick an option, skip, say
// "not ready", decline or snooze carry the card's data, and a tap sends
// the step's command. The steps of Discord's own interface are:
//
//   - the Other button of a prompt without options ("Answer…") carries
//     the card's StepOther and opens the form for free text;
//   - the Other button of a prompt with options ("Other or note…")
//     carries a StepNote: its form also takes the option numbers the text
//     goes with;
//   - a multi-select prompt's menu carries a StepPick, whose options are
//     those chosen in the menu, or a StepWithNote when the prompt takes
//     free text: the choice then opens the form for a note;
//   - a form carries a StepOther, or the StepWithNote of the options
//     chosen in the menu before it; its numbers field, when it has one,
//     gives the options.
//
// Buttons posted before steps are read by legacy.go.

// Custom ids of the forms' text inputs.
const (
	textInputID    = "text"
	numbersInputID = "numbers"
)

// otherData is the custom id of prompt p's Other control: the card's
// data for a prompt without options, a StepNote (whose form takes option
// numbers too) for a prompt with options.
func otherData(p broker.CardPrompt, other broker.Control) string {
	if len(p.Options) == 0 {
		return other.Data
	}
	return broker.EncodeStep(broker.Step{Kind: broker.StepNote, Ref: p.Ref})
}

// menuData is the custom id of multi-select prompt p's menu: a StepPick,
// or a StepWithNote when a note may follow the choice.
func menuData(p broker.CardPrompt) string {
	kind := broker.StepPick
	if _, ok := p.Control(broker.ControlOther); ok {
		kind = broker.StepWithNote
	}
	return broker.EncodeStep(broker.Step{Kind: kind, Ref: p.Ref})
}

// errNotUnderstood is a custom id that is neither a step nor a format
// of an earlier bridge.
var errNotUnderstood = errors.New("not a control of this bridge")

// readStep reads the custom id of a component or a form: a step, a
// command (a button of an earlier bridge, Legacy set), or one of the
// channel's own earlier formats (legacy.go).
func readStep(customID string) (broker.Step, error) {
	s, err := broker.DecodeStep(customID)
	if errors.Is(err, broker.ErrNotStep) {
		if old, ok := legacyStep(customID); ok {
			return old, nil
		}
		return broker.Step{}, errNotUnderstood
	}
	return s, err
}

// badOption is a selection or typed option number the channel cannot
// read: the catalog's message id and the value, said to the person.
type badOption struct {
	id, value string
}

// say is the refusal in w's language.
func (b *badOption) say(w *i18n.Printer) string {
	if b.value == "" {
		return w.T(b.id)
	}
	return w.T(b.id, b.value)
}

// menuOptions reads select menu values (0-based option indexes) as
// sorted, distinct indexes. A number beyond the prompt's options is left
// for the broker to refuse with its words.
func menuOptions(values []string) ([]int, *badOption) {
	if len(values) == 0 {
		return nil, &badOption{id: "dialog.discord.none_selected"}
	}
	idx := make([]int, 0, len(values))
	for _, v := range values {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 || k > 99 {
			return nil, &badOption{id: "dialog.discord.not_an_option", value: strconv.Quote(v)}
		}
		idx = append(idx, k)
	}
	return distinct(idx), nil
}

// typedNumbers reads the option numbers a person typed in the Other
// form ("2", "1,3", "1 3") as 0-based indexes; empty text is none.
func typedNumbers(s string) ([]int, *badOption) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	var idx []int
	for _, f := range fields {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 || k > broker.MaxOptions {
			return nil, &badOption{id: "dialog.discord.not_a_number", value: f}
		}
		idx = append(idx, k-1)
	}
	return distinct(idx), nil
}

// distinct sorts idx and drops repeats.
func distinct(idx []int) []int {
	slices.Sort(idx)
	return slices.Compact(idx)
}
