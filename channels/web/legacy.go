package web

import "github.com/askbridge/askbridge/broker"

// The commands a view carried before its controls carried steps. A page
// loaded before the bridge was upgraded keeps its script, which builds
// each command from these fields and posts it as {"text"} to
// /inbox/command or /inbox/answer, where typed commands are taken as
// ever; with them, its cards keep working after it reads a newer view.
// They go one release after steps came in (with legacy_test.go), when no
// page holds the old script any more.

// legacyCommands are a question's old command fields.
type legacyCommands struct {
	// Decline declines the question; a reason goes after a space.
	Decline string `json:"decline,omitempty"`
	// Discuss says "not ready to answer"; a message goes after a space.
	Discuss string `json:"discuss,omitempty"`
	// Snooze is the /snooze command of a question whose route allows it.
	Snooze string `json:"snooze,omitempty"`
}

// legacyPromptCommands are a prompt's old command prefixes: Choose +
// option numbers joined by commas, with Note + text after them, or Other
// + text, give the commands the prompt's form sent.
type legacyPromptCommands struct {
	Choose string `json:"choose,omitempty"`
	Note   string `json:"note,omitempty"`
	Other  string `json:"other,omitempty"`
	Skip   string `json:"skip,omitempty"`
}

// legacyOptionCommand is the command that picks an option alone.
type legacyOptionCommand struct {
	Command string `json:"command"`
}

// legacyOf returns the old command fields of a card.
func legacyOf(c broker.Card) legacyCommands {
	var l legacyCommands
	for _, ctl := range c.Controls {
		switch ctl.Kind {
		case broker.ControlDecline:
			l.Decline = ctl.Command
		case broker.ControlNotReady:
			l.Discuss = ctl.Command
		case broker.ControlSnooze:
			l.Snooze = ctl.Command
		}
	}
	return l
}

// legacyPromptOf returns the old command prefixes of an open prompt.
// Choose is the one prefix the card has no control for: the grammar's
// own formatter writes it.
func legacyPromptOf(p broker.CardPrompt) legacyPromptCommands {
	var l legacyPromptCommands
	if len(p.Options) > 0 {
		l.Choose = broker.FormatAnswer(p.Ref, "")
	}
	if other, ok := p.Control(broker.ControlOther); ok {
		l.Other = other.Command + " "
		if len(p.Options) > 0 {
			l.Note = " " + broker.OtherWord + " "
		}
	}
	if skip, ok := p.Control(broker.ControlSkip); ok {
		l.Skip = skip.Command
	}
	return l
}
