package slack

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/askbridge/askbridge/broker"
)

// Action ids inside a prompt's actions block; each is unique in its block.
const (
	actionOptionPrefix = "opt."
	actionOther        = "other"
	actionSkip         = "skip"
	actionDecline      = "decline"
	actionPick         = "pick"
	actionSubmit       = "submit"

	// otherCallbackID names the Other modal in view_submission payloads.
	otherCallbackID = "askbridge.other"
	// otherBlockID and otherActionID name the modal's text input.
	otherBlockID  = "other"
	otherActionID = "text"
)

// promptRef names one prompt of one question. Buttons that are not plain
// commands (Other…, Submit) carry it, and so does the Other modal, so that
// the command can be built with the broker's own formatter later.
type promptRef struct {
	ID      string `json:"id"`
	Prompt  int    `json:"p"`
	Prompts int    `json:"n"`
	// Question is the prompt's text (shortened), shown in the modal.
	Question string `json:"q,omitempty"`
	// Chat is the conversation the button was tapped in (modal only: a
	// view_submission carries no channel).
	Chat string `json:"c,omitempty"`
}

// stub returns a question shaped like the one ref points into, enough for
// the broker's formatters.
func (r promptRef) stub() *broker.Question {
	return &broker.Question{ID: r.ID, Prompts: make([]broker.Prompt, r.Prompts)}
}

func (r promptRef) encode() string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r) // plain strings and ints: cannot fail
	return string(bytes.TrimSpace(buf.Bytes()))
}

func decodeRef(s string) (promptRef, error) {
	var r promptRef
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, fmt.Errorf("slack: bad prompt reference: %w", err)
	}
	if !broker.ValidID(r.ID) || r.Prompts < 1 || r.Prompts > broker.MaxPrompts || r.Prompt < 0 || r.Prompt >= r.Prompts {
		return r, fmt.Errorf("slack: bad prompt reference %q", s)
	}
	return r, nil
}

func newRef(q *broker.Question, i int) promptRef {
	return promptRef{ID: q.ID, Prompt: i, Prompts: len(q.Prompts), Question: limit(q.Prompts[i].Question, 200)}
}
