package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/jsonerr"
)

// AskInput is the input of ask_user.
type AskInput struct {
	Questions []QuestionInput `json:"questions" jsonschema:"the questions to ask now, 1 to 4, shown to the person together as one dialog"`
	Timeout   string          `json:"timeout,omitempty" jsonschema:"how long the person has to answer, such as 10m, 2h or 7d (default 30m; 10s to 7d); then the defaults are used, if every question has one"`
	Route     string          `json:"route,omitempty" jsonschema:"the named route of the bridge to ask through (default: the route named default); only set it when told which one to use"`
	Wait      *bool           `json:"wait,omitempty" jsonschema:"true (the default): wait for the answer and return it; false: return the question id at once and collect the answer later with get_answer"`
	Lease     string          `json:"lease,omitempty" jsonschema:"how long the question stays open once this server is gone (killed, or its session ended), such as 60s or 10m (default 60s; 5s to 7d); then it is cancelled"`
}

// QuestionInput is one question of ask_user.
type QuestionInput struct {
	Question    string        `json:"question" jsonschema:"the complete question, ending with a question mark; give the context the person needs to answer it"`
	Header      string        `json:"header,omitempty" jsonschema:"a very short label shown as a chip, at most 16 characters, such as Database or Auth method"`
	Options     []OptionInput `json:"options,omitempty" jsonschema:"2 to 4 choices; leave out for a free-text question. Put the option you recommend first and end its label with ' (Recommended)'. Do not add an Other option: free text is always offered unless other is false"`
	MultiSelect bool          `json:"multi_select,omitempty" jsonschema:"true when the person may choose several options"`
	Other       *bool         `json:"other,omitempty" jsonschema:"whether the person may answer in their own words instead of choosing (default true); false allows only the options"`
	Default     StringList    `json:"default,omitempty" jsonschema:"the answer used when nobody answers in time: an option label (several for multi_select) or text"`
	Field       *FieldInput   `json:"field,omitempty" jsonschema:"a typed answer, written as one property of an MCP elicitation requestedSchema: the person's answer is checked against it and returned typed in value. Leave out options, multi_select and other: the field sets them"`
}

// OptionInput is one choice of a question.
type OptionInput struct {
	Label       string `json:"label" jsonschema:"the choice in 1 to 5 words"`
	Description string `json:"description,omitempty" jsonschema:"what choosing it means: the trade-off or consequence"`
	Action      string `json:"action,omitempty" jsonschema:"end_turn or new_session: what you intend to do when this option is chosen; returned with the answer"`
	Prefill     string `json:"prefill,omitempty" jsonschema:"text returned with the answer when this option is chosen, such as the prompt of a new session"`
}

// StringList is a list of strings that also reads a single string.
type StringList []string

// UnmarshalJSON accepts "A" or ["A", "B"].
func (l *StringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = nil
		if one != "" {
			*l = StringList{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("must be a string or a list of strings")
	}
	*l = many
	return nil
}

// GetInput is the input of get_answer.
type GetInput struct {
	ID          string `json:"id" jsonschema:"the question id that ask_user returned"`
	WaitSeconds *int   `json:"wait_seconds,omitempty" jsonschema:"how long to wait for the answer before returning still pending, 0 to 60 seconds (default 30)"`
}

// CancelInput is the input of cancel_question.
type CancelInput struct {
	ID     string `json:"id" jsonschema:"the question id that ask_user returned"`
	Reason string `json:"reason,omitempty" jsonschema:"why the question is withdrawn, shown to the people it was asked"`
}

// decodeArgs reads a tool's arguments strictly into v: unknown fields,
// wrong types and trailing data are errors that name the field with its
// position, in words (jsonerr).
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errors.New("unexpected data after the JSON object")
		}
	}
	if err == nil {
		return nil
	}
	return errors.New(jsonerr.Describe("the input", raw, v, err).Message)
}

// lease is the lease of the call's question: the input's, else def.
func (in *AskInput) lease(def time.Duration) (time.Duration, error) {
	if in.Lease == "" {
		return def, nil
	}
	d, err := broker.ParseDuration(in.Lease)
	if err != nil {
		return 0, fmt.Errorf("lease: %q is not a duration (use e.g. 60s, 10m, 2h)", in.Lease)
	}
	if d < broker.MinLease || d > broker.MaxLease {
		return 0, fmt.Errorf("lease: must be between %s and 7d, got %s", broker.MinLease, d)
	}
	return d, nil
}

// question turns the input into the bridge's request.
func (in *AskInput) question(sessionID, toolCallID string) client.Question {
	q := client.Question{SessionID: sessionID, ToolCallID: toolCallID, Route: in.Route, Timeout: in.Timeout}
	for _, p := range in.Questions {
		cp := client.Prompt{Question: p.Question, Header: p.Header, MultiSelect: p.MultiSelect, Other: p.Other, Default: p.Default, Field: p.Field.Field()}
		for _, o := range p.Options {
			cp.Options = append(cp.Options, client.Option{Label: o.Label, Description: o.Description, Action: o.Action, Prefill: o.Prefill})
		}
		q.Prompts = append(q.Prompts, cp)
	}
	return q
}
