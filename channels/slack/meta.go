package slack

import (
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// Action ids inside a question message; each is unique in its block. A
// control's button has its kind as action id ("submit", "other", "skip",
// "not_ready", "decline", "snooze"). What a tap does is read from the
// button's value, a broker.Step, not from the action id.
const (
	actionOptionPrefix = "opt."
	actionPick         = "pick"
	actionSubmit       = string(broker.ControlSubmit)
	actionOther        = string(broker.ControlOther)

	// otherCallbackID names the Other modal in view_submission payloads.
	otherCallbackID = "askbridge.other"
	// otherBlockID and otherActionID name the modal's text input.
	otherBlockID  = "other"
	otherActionID = "text"
	// choiceBlockID and choiceActionID name the modal's radio buttons or
	// checkboxes, whose values are 0-based option indexes.
	choiceBlockID  = "choice"
	choiceActionID = "pick"
)

// modalMeta is what the Other modal carries in its private_metadata: the
// step of the "Other or note…" button, and the conversation it was
// tapped in, which a view_submission does not name.
type modalMeta struct {
	step broker.Step
	chat string
}

// encode writes m as "<step> <chat>": "1x:k7m2qx.1/1 C0GENERAL".
func (m modalMeta) encode() string {
	return broker.EncodeStep(m.step) + " " + m.chat
}

func decodeModalMeta(s string) (modalMeta, error) {
	data, chat, ok := strings.Cut(s, " ")
	if !ok || chat == "" {
		return modalMeta{}, fmt.Errorf("slack: modal metadata %q names no conversation", s)
	}
	step, err := broker.DecodeStep(data)
	if err != nil {
		return modalMeta{}, fmt.Errorf("slack: modal metadata: %w", err)
	}
	if step.Legacy != "" {
		return modalMeta{}, fmt.Errorf("slack: modal metadata %q holds a command, not a step", s)
	}
	return modalMeta{step: step, chat: chat}, nil
}
