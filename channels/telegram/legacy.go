package telegram

import (
	"strconv"
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// The callback data of buttons posted before every button carried a
// broker.Step, read so that those buttons keep working for one release
// after the change; this file is removed in the release after that.
//
// Answer, toggle, skip, decline, not-ready and snooze buttons carried
// their command ("/answer k7m2qx 2"), which broker.DecodeStep reads
// itself (Step.Legacy). The steps of this channel's interface had their
// own formats:
//
//	o:<id>:<prompt>            Other… (StepOther)
//	n:<id>:<prompt>            📝 Note… (StepNote, which now opens
//	                           the one reply box of Other)
//	x:<id>:<prompt>            ✖ Drop note (StepDropNote)
//	d:<id>:<prompt>            Done with nothing ticked (StepSubmit)
//	a:<id>:<prompt>:<prompts>:<options>
//	                           an option or Done with the held note
//	                           (StepWithNote); options as 1-based
//	                           digits, 0 for the note alone
//
// <prompt> is 0-based. The first four do not name the question's prompt
// count: their Step's Ref has Count 0, and the handlers take the
// reference from the question they read.

// legacyStep reads the callback data of a button posted by an earlier
// release, and reports whether it is one.
func legacyStep(data string) (broker.Step, bool) {
	if strings.HasPrefix(data, "/") {
		// A command DecodeStep refused: it goes to the broker as it
		// did, which says what is wrong with it.
		return broker.Step{Legacy: data}, true
	}
	kind, rest, ok := strings.Cut(data, ":")
	if !ok {
		return broker.Step{}, false
	}
	f := strings.Split(rest, ":")
	if len(f) < 2 || !broker.ValidID(f[0]) {
		return broker.Step{}, false
	}
	i, err := strconv.Atoi(f[1])
	if err != nil || i < 0 || i >= broker.MaxPrompts {
		return broker.Step{}, false
	}
	s := broker.Step{Ref: broker.PromptRef{ID: f[0], Index: i}}
	switch kind {
	case "o":
		s.Kind = broker.StepOther
	case "n":
		s.Kind = broker.StepNote
	case "x":
		s.Kind = broker.StepDropNote
	case "d":
		s.Kind = broker.StepSubmit
	case "a":
		return legacyWithNote(s, f)
	default:
		return broker.Step{}, false
	}
	if len(f) != 2 {
		return broker.Step{}, false
	}
	return s, true
}

// legacyWithNote reads the rest of "a:<id>:<prompt>:<prompts>:<options>".
func legacyWithNote(s broker.Step, f []string) (broker.Step, bool) {
	if len(f) != 4 {
		return broker.Step{}, false
	}
	n, err := strconv.Atoi(f[2])
	s.Kind, s.Ref.Count = broker.StepWithNote, n
	if err != nil || !s.Ref.Valid() || f[3] == "" || len(f[3]) > broker.MaxOptions {
		return broker.Step{}, false
	}
	if f[3] == "0" {
		return s, true
	}
	for _, d := range f[3] {
		if d < '1' || d > '0'+broker.MaxOptions {
			return broker.Step{}, false
		}
		s.Options = append(s.Options, int(d-'1'))
	}
	return s, true
}
