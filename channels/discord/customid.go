package discord

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

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
// Buttons that pick an option, skip, say "not ready" or decline carry the
// broker's command string exactly; these carry where the command is to be
// built: "<kind>:<question id>:<prompt index>:<number of prompts>", and
// for kindNoteModal ":<picked options>" (1-based digits, "13").
const (
	kindSelect     = "m"  // multi-select menu; its values are option indexes
	kindSelectNote = "mn" // the same, when a note may follow: opens kindNoteModal
	kindOther      = "o"  // "Answer…" button (no options): opens the modal
	kindOtherNote  = "on" // "Other or note…" button: opens the modal with a numbers field
	kindModal      = "om" // the Other modal's submission
	kindNoteModal  = "mm" // the note modal's submission, after the menu
)

// Custom ids of the modals' text inputs.
const (
	textInputID    = "text"
	numbersInputID = "numbers"
)

// slot names a prompt of a question in a custom id.
type slot struct {
	kind string
	ref  broker.PromptRef
	// picked are the 0-based options chosen in the menu (kindNoteModal).
	picked []int
}

func slotID(kind string, q *broker.Question, i int) string {
	return slot{ref: q.Ref(i)}.customID(kind)
}

// customID is the custom id of kind for the prompt s names.
func (s slot) customID(kind string) string {
	id := fmt.Sprintf("%s:%s:%d:%d", kind, s.ref.ID, s.ref.Index, s.ref.Count)
	if kind == kindNoteModal {
		var b strings.Builder
		for _, k := range s.picked {
			b.WriteString(strconv.Itoa(k + 1))
		}
		id += ":" + b.String()
	}
	return id
}

// parseSlot reads a custom id made by slotID or customID; ok is false for
// anything else (the custom id is then a command for the broker).
func parseSlot(customID string) (slot, bool) {
	parts := strings.Split(customID, ":")
	want := 4
	switch parts[0] {
	case kindSelect, kindSelectNote, kindOther, kindOtherNote, kindModal:
	case kindNoteModal:
		want = 5
	default:
		return slot{}, false
	}
	if len(parts) != want {
		return slot{}, false
	}
	i, err1 := strconv.Atoi(parts[2])
	n, err2 := strconv.Atoi(parts[3])
	s := slot{kind: parts[0], ref: broker.PromptRef{ID: parts[1], Index: i, Count: n}}
	if err1 != nil || err2 != nil || !s.ref.Valid() {
		return slot{}, false
	}
	if want == 5 {
		digits := parts[4]
		if digits == "" || len(digits) > broker.MaxOptions {
			return slot{}, false
		}
		for _, d := range digits {
			if d < '1' || d > '0'+broker.MaxOptions {
				return slot{}, false
			}
			s.picked = append(s.picked, int(d-'1'))
		}
	}
	return s, true
}

// menuOptions reads select menu values (option indexes). A number beyond
// the prompt's options is left for the broker to refuse with its words.
func menuOptions(values []string) ([]int, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("no option selected")
	}
	idx := make([]int, 0, len(values))
	for _, v := range values {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 || k > 99 {
			return nil, fmt.Errorf("%q is not an option", v)
		}
		idx = append(idx, k)
	}
	return broker.SelectedOptions(idx), nil
}

// typedNumbers reads the option numbers a person typed in the Other
// modal ("2", "1,3", "1 3") as 0-based indexes; empty text is none.
func typedNumbers(s string) ([]int, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	var idx []int
	for _, f := range fields {
		k, err := strconv.Atoi(f)
		if err != nil || k < 1 || k > broker.MaxOptions {
			return nil, fmt.Errorf("%q is not an option number: type numbers such as 2 or 1,3, or leave the field empty", f)
		}
		idx = append(idx, k-1)
	}
	return broker.SelectedOptions(idx), nil
}
