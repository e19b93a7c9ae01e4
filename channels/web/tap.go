package web

import (
	"errors"
	"fmt"
	"slices"

	"github.com/askbridge/askbridge/broker"
)

// tap is what the page posts when a person uses a card's control: the
// step the control carries (broker.EncodeStep, from the view), the
// numbers of the options ticked in the prompt's form (a pick step's
// only), and the text typed beside it (an answer, a note, a reason).
type tap struct {
	Step    string
	Options []int
	Text    string
}

// command reads the tap's step (broker.DecodeStep) and returns it and
// the command it sends with the tap's text (Step.Command). A step that
// sends nothing without a choice, such as a pick with nothing ticked
// nor typed, gives ok false; data that is no step, or options on a
// step that takes none, give an error that says so.
func (t tap) command() (s broker.Step, cmd string, ok bool, err error) {
	s, err = broker.DecodeStep(t.Step)
	if err != nil {
		return broker.Step{}, "", false, fmt.Errorf("step: %w", err)
	}
	if len(t.Options) > 0 {
		if s.Kind != broker.StepPick {
			return broker.Step{}, "", false, errors.New("options: only the answer form's step takes the options ticked")
		}
		if s.Options, err = pickedOptions(t.Options); err != nil {
			return broker.Step{}, "", false, err
		}
	}
	cmd, ok = s.Command(t.Text)
	return s, cmd, ok, nil
}

// pickedOptions turns the 1-based option numbers the page posts into a
// step's 0-based options.
func pickedOptions(numbers []int) ([]int, error) {
	if len(numbers) > broker.MaxOptions {
		return nil, fmt.Errorf("options: %d ticked; a prompt has at most %d options", len(numbers), broker.MaxOptions)
	}
	out := make([]int, 0, len(numbers))
	for _, n := range numbers {
		if n < 1 || n > broker.MaxOptions {
			return nil, fmt.Errorf("options: %d is not an option number (1–%d)", n, broker.MaxOptions)
		}
		if slices.Contains(out, n-1) {
			return nil, fmt.Errorf("options: %d is ticked twice", n)
		}
		out = append(out, n-1)
	}
	return out, nil
}
