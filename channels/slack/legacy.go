package slack

// The previous release's Submit and "Other or note…" buttons, and the
// Other modal, carried a JSON prompt reference instead of a broker.Step:
//
//	button value     {"id":"k7m2qx","p":0,"n":1,"q":"Which database?","o":["Postgres","SQLite"],"m":true}
//	private_metadata {"id":"k7m2qx","p":0,"n":1,"c":"C0GENERAL",…}
//
// Its other buttons carried their command ("/answer k7m2qx 2"), which
// broker.DecodeStep reads as a Legacy step. This file reads the JSON
// forms, so that messages and modals already open keep working for one
// release; it goes in the release after.

import (
	"encoding/json"
	"fmt"

	"github.com/askbridge/askbridge/broker"
)

// legacyRef is the part of the old JSON reference still needed: the
// question, the prompt, the prompt count and (modal only) the
// conversation. The question text and labels it also held are read from
// the message now.
type legacyRef struct {
	ID      string `json:"id"`
	Prompt  int    `json:"p"`
	Prompts int    `json:"n"`
	Chat    string `json:"c"`
}

func decodeLegacyRef(s string) (broker.PromptRef, string, error) {
	var r legacyRef
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return broker.PromptRef{}, "", fmt.Errorf("slack: bad prompt reference: %w", err)
	}
	ref := broker.PromptRef{ID: r.ID, Index: r.Prompt, Count: r.Prompts}
	if !ref.Valid() {
		return broker.PromptRef{}, "", fmt.Errorf("slack: bad prompt reference %q", s)
	}
	return ref, r.Chat, nil
}

// legacyButton reads the value of an old Submit or "Other or note…"
// button (by its action id, which has not changed) as the step the
// button carries now.
func legacyButton(actionID, value string) (broker.Step, bool) {
	kind := broker.StepSubmit
	switch actionID {
	case actionSubmit:
	case actionOther:
		kind = broker.StepOther
	default:
		return broker.Step{}, false
	}
	ref, _, err := decodeLegacyRef(value)
	if err != nil {
		return broker.Step{}, false
	}
	return broker.Step{Kind: kind, Ref: ref}, true
}

// legacyModalMeta reads the private_metadata of an Other modal opened
// before the upgrade.
func legacyModalMeta(s string) (modalMeta, error) {
	ref, chat, err := decodeLegacyRef(s)
	if err != nil {
		return modalMeta{}, err
	}
	if chat == "" {
		return modalMeta{}, fmt.Errorf("slack: modal metadata %q names no conversation", s)
	}
	return modalMeta{step: broker.Step{Kind: broker.StepOther, Ref: ref}, chat: chat}, nil
}
