package discord

import (
	"strconv"
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// This file reads the custom ids of components and forms posted before
// they carried steps, so that messages already in Discord keep working.
// It goes after one release, with its tests (legacy_test.go).
//
// Buttons that sent a command carried the command itself ("/answer
// k7m2qx 2"): broker.DecodeStep reads those (Step.Legacy). The others
// carried "<kind>:<question id>:<0-based prompt index>:<number of
// prompts>", and the note form ":<picked options>" after it (1-based
// digits, "13"):
//
//	m   multi-select menu              → StepPick
//	mn  the same, a note may follow    → StepWithNote
//	o   "Answer…" button               → StepOther
//	on  "Other or note…" button        → StepNote
//	om  the Other form                 → StepOther
//	mm  the note form after the menu   → StepWithNote with the options

// legacyKinds maps the earlier kinds to the steps they are now.
var legacyKinds = map[string]broker.StepKind{
	"m": broker.StepPick, "mn": broker.StepWithNote,
	"o": broker.StepOther, "on": broker.StepNote,
	"om": broker.StepOther, "mm": broker.StepWithNote,
}

// legacyStep reads an earlier custom id as the step it is now; ok is
// false for anything else.
func legacyStep(customID string) (broker.Step, bool) {
	parts := strings.Split(customID, ":")
	kind, known := legacyKinds[parts[0]]
	want := 4
	if parts[0] == "mm" {
		want = 5
	}
	if !known || len(parts) != want {
		return broker.Step{}, false
	}
	i, err1 := strconv.Atoi(parts[2])
	n, err2 := strconv.Atoi(parts[3])
	s := broker.Step{Kind: kind, Ref: broker.PromptRef{ID: parts[1], Index: i, Count: n}}
	if err1 != nil || err2 != nil || !s.Ref.Valid() {
		return broker.Step{}, false
	}
	if want == 5 {
		digits := parts[4]
		if digits == "" || len(digits) > broker.MaxOptions {
			return broker.Step{}, false
		}
		for _, d := range digits {
			if d < '1' || d > '0'+broker.MaxOptions {
				return broker.Step{}, false
			}
			s.Options = append(s.Options, int(d-'1'))
		}
	}
	return s, true
}
