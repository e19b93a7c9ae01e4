package discord

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/askbridge/askbridge/broker"
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

// Custom ids of the components that do not carry a command themselves.
// Buttons that pick an option, skip or decline carry the broker's command
// string exactly; these three carry where the command is to be built:
// "<kind>:<question id>:<prompt index>:<number of prompts>".
const (
	kindSelect = "m"  // multi-select menu; its values are option indexes
	kindOther  = "o"  // "Other…" button: opens the modal
	kindModal  = "om" // the modal's submission: its text is the Other answer
)

// textInputID is the custom_id of the modal's text input.
const textInputID = "text"

// slot names a prompt of a question in a custom id.
type slot struct {
	kind   string
	id     string
	prompt int
	count  int
}

func slotID(kind string, q *broker.Question, i int) string {
	return fmt.Sprintf("%s:%s:%d:%d", kind, q.ID, i, len(q.Prompts))
}

// parseSlot reads a custom id made by slotID; ok is false for anything
// else (the custom id is then a command for the broker).
func parseSlot(customID string) (slot, bool) {
	parts := strings.Split(customID, ":")
	if len(parts) != 4 {
		return slot{}, false
	}
	switch parts[0] {
	case kindSelect, kindOther, kindModal:
	default:
		return slot{}, false
	}
	i, err1 := strconv.Atoi(parts[2])
	n, err2 := strconv.Atoi(parts[3])
	if err1 != nil || err2 != nil || n < 1 || n > broker.MaxPrompts || i < 0 || i >= n || parts[1] == "" {
		return slot{}, false
	}
	return slot{kind: parts[0], id: parts[1], prompt: i, count: n}, true
}

// question returns a stand-in question with the id and the number of
// prompts of s: all the broker's formatters need to build the command.
func (s slot) question() *broker.Question {
	return &broker.Question{ID: s.id, Prompts: make([]broker.Prompt, s.count)}
}

// options turns select menu values (option indexes) into the command that
// picks them.
func (s slot) options(values []string) (string, error) {
	if len(values) == 0 {
		return "", fmt.Errorf("no option selected")
	}
	idx := make([]int, 0, len(values))
	for _, v := range values {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 || k > 99 {
			return "", fmt.Errorf("%q is not an option", v)
		}
		idx = append(idx, k)
	}
	return broker.FormatOption(s.question(), s.prompt, broker.SelectedOptions(idx)...), nil
}
