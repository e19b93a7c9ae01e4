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
	actionDiscuss      = "discuss"
	actionPick         = "pick"
	actionSubmit       = "submit"

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

// promptRef names one prompt of one question. Buttons that are not plain
// commands (Other or note…, Submit) carry it, and so does the Other modal, so that
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
	// Options are the prompt's option labels (shortened) and Multi tells
	// whether several may be picked: the modal offers them beside the
	// text, which then is a note.
	Options []string `json:"o,omitempty"`
	Multi   bool     `json:"m,omitempty"`
	// Picked are the options ticked in the message when "Other or note…"
	// was tapped (modal only), ticked again in the modal.
	Picked []int `json:"k,omitempty"`
}

// ref returns the broker's reference of the prompt r names, which the
// broker's formatters take.
func (r promptRef) ref() broker.PromptRef {
	return broker.PromptRef{ID: r.ID, Index: r.Prompt, Count: r.Prompts}
}

func (r promptRef) encode() string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(r) // plain strings and ints: cannot fail
	return string(bytes.TrimSpace(buf.Bytes()))
}

// encodeWithin encodes r in at most n bytes, shortening the question and
// then the labels shown in the modal; the command is built from the id
// and numbers, which are never cut.
func (r promptRef) encodeWithin(n int) string {
	s := r.encode()
	for _, q := range []int{100, 40, 0} {
		if len(s) <= n {
			return s
		}
		r.Question = limit(r.Question, q)
		s = r.encode()
	}
	for _, l := range []int{30, 10} {
		if len(s) <= n {
			return s
		}
		for k := range r.Options {
			r.Options[k] = limit(r.Options[k], l)
		}
		s = r.encode()
	}
	return s
}

func decodeRef(s string) (promptRef, error) {
	var r promptRef
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, fmt.Errorf("slack: bad prompt reference: %w", err)
	}
	if !r.ref().Valid() || len(r.Options) > broker.MaxOptions {
		return r, fmt.Errorf("slack: bad prompt reference %q", s)
	}
	return r, nil
}

func newRef(q *broker.Question, i int) promptRef {
	p := q.Prompts[i]
	r := promptRef{ID: q.ID, Prompt: i, Prompts: len(q.Prompts), Question: limit(p.Question, 200), Multi: p.MultiSelect}
	for _, o := range p.Options {
		r.Options = append(r.Options, limit(o.Label, maxOptionText))
	}
	return r
}
