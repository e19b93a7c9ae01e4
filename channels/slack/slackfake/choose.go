package slackfake

import (
	"encoding/json"
	"fmt"

	"github.com/askbridge/askbridge/channels/channeltest"
)

// submitActionID is the action_id of the button that sends the
// checkboxes of its actions block.
const submitActionID = "submit"

// harnessButton is b as the harness shows it; its Value is b itself, for
// Tap.
func harnessButton(b Button) channeltest.Button {
	v, _ := json.Marshal(b)
	return channeltest.Button{Label: b.Text, Value: string(v), Data: b.Value, ID: b.ActionID}
}

// widgetRef is what Choose needs of a widget: where it is.
type widgetRef struct {
	BlockID, ActionID, Type string
}

// widgets returns every interactive element of the message that is not a
// button, in order: the elements of actions blocks and sections'
// accessories. Checkboxes carry no value of their own; their Submit is
// the button of their block whose action_id is "submit".
func (m Message) widgets() []channeltest.Widget {
	var out []channeltest.Widget
	for _, b := range m.blocks() {
		elems := b.Elements
		if b.Type != "actions" {
			elems = nil
		}
		if b.Accessory != nil {
			elems = append(elems, *b.Accessory)
		}
		for _, e := range elems {
			if e.Type == "button" {
				continue
			}
			ref, _ := json.Marshal(widgetRef{BlockID: b.BlockID, ActionID: e.ActionID, Type: e.Type})
			w := channeltest.Widget{Kind: e.Type, ID: e.ActionID, Data: e.Value, Value: string(ref)}
			for _, raw := range e.Options {
				var o struct {
					Text struct {
						Text string `json:"text"`
					} `json:"text"`
					Value string `json:"value"`
				}
				_ = json.Unmarshal(raw, &o)
				w.Options = append(w.Options, channeltest.Choice{Label: o.Text.Text, Value: o.Value})
			}
			if e.Type == "checkboxes" {
				for _, btn := range m.Buttons() {
					if btn.BlockID == b.BlockID && btn.ActionID == submitActionID {
						sb := harnessButton(btn)
						w.Submit = &sb
					}
				}
			}
			out = append(out, w)
		}
	}
	return out
}

// Choose ticks the checkboxes of w at positions picked and presses their
// Submit, and returns the ephemeral message the app posts for the
// person. Other widgets are not built into the fake.
func (h *harness) Choose(chat string, m channeltest.Message, w channeltest.Widget, picked ...int) (channeltest.Told, error) {
	var ref widgetRef
	if err := json.Unmarshal([]byte(w.Value), &ref); err != nil {
		return channeltest.Told{}, fmt.Errorf("slackfake: widget %q: %w", w.ID, err)
	}
	if ref.Type != "checkboxes" || w.Submit == nil {
		return channeltest.Told{}, fmt.Errorf("slackfake: choosing in a %s without a Submit beside it is not built", ref.Type)
	}
	var submit Button
	if err := json.Unmarshal([]byte(w.Submit.Value), &submit); err != nil {
		return channeltest.Told{}, fmt.Errorf("slackfake: button %q: %w", w.Submit.Label, err)
	}
	msg, ok := h.s.Message(chat, m.ID)
	if !ok {
		return channeltest.Told{}, fmt.Errorf("slackfake: no message %s in %s", m.ID, chat)
	}
	p, err := SubmitCheckboxes(msg, h.person, submit, picked...)
	if err != nil {
		return channeltest.Told{}, err
	}
	return h.send(p, "the submission")
}
