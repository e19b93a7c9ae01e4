package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

// Elicitations of other MCP servers answered from chat. Claude Code's
// hooks reference documents the Elicitation event: besides the common
// fields (session_id, cwd, …) its input holds mcp_server_name and message,
// and optionally mode ("form", or "url" for a page to open in a browser),
// url, elicitation_id and requested_schema (the MCP requestedSchema: an
// object of flat properties). Its matcher is the server's name. The hook
// answers instead of the local form by printing
// {"hookSpecificOutput":{"hookEventName":"Elicitation","action":…,"content":{…}}}
// with action accept, decline or cancel, and content (the form's values)
// only with accept; printing nothing lets the form appear. Exit 2 would
// decline: the hook never uses it.
//
// Each property becomes one prompt of a dialog with the field of its type
// (at most broker.MaxPrompts of them). MCP requires accepted content to
// hold every required property: a required value skipped in chat cancels
// the form, an optional one is left out of the content.

// claudeElicitEvent is the part of an Elicitation event the hook reads.
type claudeElicitEvent struct {
	SessionID       string          `json:"session_id"`
	Cwd             string          `json:"cwd"`
	MCPServerName   string          `json:"mcp_server_name"`
	Message         string          `json:"message"`
	Mode            string          `json:"mode"`
	RequestedSchema json.RawMessage `json:"requested_schema"`
}

// elicitSchema is a requestedSchema: an object of properties, some
// required.
type elicitSchema struct {
	Type       string                     `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// elicitPrompt ties a property to the prompt that asks for it.
type elicitPrompt struct {
	key, question string
	required      bool
}

// elicitOutput is the Elicitation hook's output.
type elicitOutput struct {
	HookSpecificOutput elicitSpecific `json:"hookSpecificOutput"`
}

type elicitSpecific struct {
	HookEventName string          `json:"hookEventName"`
	Action        string          `json:"action"`
	Content       json.RawMessage `json:"content,omitempty"`
}

// claudeElicitation reads an Elicitation event into a dialog. An event
// that is no Claude Code hook JSON is an error (exit 1). A form the chat
// cannot take (a page to open, no schema, too many properties, a type the
// bridge does not know) is left to the local form: the job says why on
// standard error, prints nothing and exits 0.
func claudeElicitation(h agentHook, payload []byte) (*hookJob, error) {
	var ev claudeElicitEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("the Elicitation event is not Claude Code hook JSON: %w", err)
	}
	ask, err := elicitationAsk(h, ev)
	if err != nil {
		return &hookJob{pass: err.Error()}, nil
	}
	return &hookJob{ask: ask}, nil
}

// elicitationAsk is the dialog of an Elicitation event, or an error
// saying why the chat cannot take its form.
func elicitationAsk(h agentHook, ev claudeElicitEvent) (*hookAsk, error) {
	server := ev.MCPServerName
	if server == "" {
		server = "(unnamed)"
	}
	switch {
	case ev.Mode != "" && ev.Mode != "form":
		return nil, fmt.Errorf("the elicitation of MCP server %s is in mode %q; chat takes forms only, the local dialog asks", server, ev.Mode)
	case len(bytes.TrimSpace(ev.RequestedSchema)) == 0 || string(bytes.TrimSpace(ev.RequestedSchema)) == "null":
		return nil, fmt.Errorf("the elicitation of MCP server %s has no requested_schema; the local form asks", server)
	}
	var s elicitSchema
	if err := json.Unmarshal(ev.RequestedSchema, &s); err != nil {
		return nil, fmt.Errorf("the requested_schema of MCP server %s: %w", server, err)
	}
	keys, err := objectKeys(ev.RequestedSchema, "properties")
	switch {
	case err != nil:
		return nil, fmt.Errorf("the requested_schema of MCP server %s: %w", server, err)
	case s.Type != "" && s.Type != "object":
		return nil, fmt.Errorf("the requested_schema of MCP server %s has type %q, not object", server, s.Type)
	case len(keys) == 0:
		return nil, fmt.Errorf("the requested_schema of MCP server %s has no properties; the local form asks", server)
	case len(keys) > broker.MaxPrompts:
		return nil, fmt.Errorf("the form of MCP server %s has %d values; chat asks at most %d at a time, the local form asks", server, len(keys), broker.MaxPrompts)
	}
	required := map[string]bool{}
	for _, k := range s.Required {
		required[k] = true
	}
	var prompts []client.Prompt
	var asked []elicitPrompt
	var must []string
	seen := map[string]bool{}
	for _, key := range keys {
		fd, err := elicitField(s.Properties[key], key)
		if err != nil {
			return nil, fmt.Errorf("property %q of the requested_schema of MCP server %s: %w", key, server, err)
		}
		question := fd.Title
		if seen[question] {
			question += " (" + key + ")"
		}
		seen[question] = true
		prompts = append(prompts, client.Prompt{Question: question, Field: fd})
		asked = append(asked, elicitPrompt{key: key, question: question, required: required[key]})
		if required[key] {
			must = append(must, question)
		}
	}
	session := hookSession(h, ev.SessionID)
	ctx := fmt.Sprintf("The MCP server %s asks, through %s:\n%s", server, h.title, cutText(ev.Message, broker.MaxContextChars/2))
	if len(must) > 0 {
		ctx += "\nRequired: " + strings.Join(must, ", ") + " (skipping one cancels the form)"
	}
	if ev.Cwd != "" {
		ctx += "\nDirectory: " + cutText(ev.Cwd, valueMax)
	}
	ctx += "\nSession: " + session
	q := client.Question{
		SessionID: session, Prompts: prompts, Context: ctx,
		// The event names no call: the same form again is a request of
		// its own (askForHook adds a nonce).
		ToolCallID: "elicit-" + inputDigest("mcp:"+ev.MCPServerName, elicitKeyInput(ev)),
	}
	return &hookAsk{q: q, decide: func(res *client.Result) any { return elicitDecide(res, asked) }}, nil
}

// elicitKeyInput is what keys an elicitation: its message and schema.
func elicitKeyInput(ev claudeElicitEvent) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"message": ev.Message, "requested_schema": ev.RequestedSchema})
	return b
}

// elicitField is the bridge's field for the property raw under key, read
// as ask_user reads a typed field (mcp.FieldInput): an error names a type
// the bridge does not take. Every other rule (2–4 choices, bounds that
// hold, a default that fits) is the bridge's to check: a question it
// refuses leaves the form to the local dialog.
func elicitField(raw json.RawMessage, key string) (*client.Field, error) {
	var p mcp.FieldInput
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	switch p.Type {
	case "string", "number", "integer", "boolean":
	case "array":
		if p.Items == nil || (p.Items.Enum == nil && p.Items.AnyOf == nil) {
			return nil, errors.New("an array without items of enum or anyOf choices, which the bridge does not take")
		}
	case "":
		return nil, errors.New("no type; the bridge takes string, number, integer, boolean, array of choices")
	default:
		return nil, fmt.Errorf("type %q, which the bridge does not take (string, number, integer, boolean, array of choices)", p.Type)
	}
	fd := p.Field()
	fd.Name, fd.Title = "", strings.TrimSpace(fd.Title)
	if fieldName(key) {
		fd.Name = key
	}
	if fd.Title == "" {
		fd.Title = key
	}
	return fd, nil
}

// fieldName reports whether key can be a field's name (letters, digits,
// _, - and ., at most 64); another key still names its value in content.
func fieldName(key string) bool {
	if key == "" || len(key) > 64 {
		return false
	}
	for _, r := range key {
		if !(r == '_' || r == '-' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// elicitDecide maps the ended dialog to the hook's output: accept with
// each answered value under its property's key, typed as answered;
// decline for a declined dialog; cancel for a cancelled one or a required
// value skipped; nothing (the local form) for a timeout.
func elicitDecide(res *client.Result, asked []elicitPrompt) any {
	out := elicitSpecific{HookEventName: "Elicitation"}
	switch res.Status {
	case client.StatusDeclined:
		out.Action = "decline"
		return elicitOutput{HookSpecificOutput: out}
	case client.StatusCancelled:
		out.Action = "cancel"
		return elicitOutput{HookSpecificOutput: out}
	case client.StatusAnswered:
	default:
		return nil
	}
	// The content is written in the form's order.
	content := []byte{'{'}
	for _, p := range asked {
		a, ok := res.Answers[p.question]
		switch {
		case !ok:
			return nil
		case a.Skipped || len(a.Value) == 0:
			if p.required {
				out.Action = "cancel"
				return elicitOutput{HookSpecificOutput: out}
			}
		default:
			if len(content) > 1 {
				content = append(content, ',')
			}
			k, _ := json.Marshal(p.key)
			content = append(append(append(content, k...), ':'), compactRaw(a.Value)...)
		}
	}
	content = append(content, '}')
	if !json.Valid(content) {
		return nil
	}
	out.Action, out.Content = "accept", content
	return elicitOutput{HookSpecificOutput: out}
}

// objectKeys returns the keys of the object under name in the JSON
// object raw, in the order they are written (the order of the form).
func objectKeys(raw json.RawMessage, name string) ([]string, error) {
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(raw, &outer); err != nil {
		return nil, err
	}
	inner, ok := outer[name]
	if !ok || string(bytes.TrimSpace(inner)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(inner))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("%s is not an object", name)
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
