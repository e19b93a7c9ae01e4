package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// claudeAgent is `bridge hook claude`: Claude Code's PermissionRequest
// hook, its PreToolUse hook for the AskUserQuestion tool, its Elicitation
// hook (the forms of other MCP servers, elicitation.go), and its
// PostToolUse, PostToolUseFailure and Stop hooks, which close the
// questions of prompts settled at the terminal.
var claudeAgent = agentHook{name: "claude", title: "Claude Code", handle: claudeHandle}

// claudeEvent is the part of a Claude Code hook event the hook reads.
type claudeEvent struct {
	SessionID             string            `json:"session_id"`
	Cwd                   string            `json:"cwd"`
	PermissionMode        string            `json:"permission_mode"`
	HookEventName         string            `json:"hook_event_name"`
	ToolName              string            `json:"tool_name"`
	ToolInput             json.RawMessage   `json:"tool_input"`
	ToolUseID             string            `json:"tool_use_id"`
	PermissionSuggestions []json.RawMessage `json:"permission_suggestions"`
}

// claudeSuggestion is one entry of permission_suggestions (the same shape
// as the updatedPermissions of the decision): addRules with rules,
// behavior and destination, or setMode with mode and destination.
type claudeSuggestion struct {
	Type        string `json:"type"`
	Behavior    string `json:"behavior"`
	Mode        string `json:"mode"`
	Destination string `json:"destination"`
	Rules       []struct {
		ToolName    string `json:"toolName"`
		RuleContent string `json:"ruleContent"`
	} `json:"rules"`
}

// claudeDestinations says where each destination writes, for people.
var claudeDestinations = map[string]string{
	"session":         "for this session",
	"localSettings":   "to .claude/settings.local.json",
	"projectSettings": "to .claude/settings.json",
	"userSettings":    "to ~/.claude/settings.json",
}

func claudeHandle(h agentHook, payload []byte) (*hookJob, error) {
	var ev claudeEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("the event on standard input is not Claude Code hook JSON: %w", err)
	}
	switch {
	case ev.HookEventName == "PreToolUse" && ev.ToolName == "AskUserQuestion":
		ask, err := claudeQuestion(h, ev)
		return &hookJob{ask: ask}, err
	case ev.HookEventName == "Elicitation":
		return claudeElicitation(h, payload)
	case ev.HookEventName == "PostToolUse", ev.HookEventName == "PostToolUseFailure", ev.HookEventName == "Stop":
		return &hookJob{settle: claudeSettled(h, ev)}, nil
	case ev.HookEventName != "PermissionRequest":
		return nil, nil // not an event this hook decides
	case ev.ToolName == "":
		return nil, fmt.Errorf("the PermissionRequest event has no tool_name")
	case ev.ToolName == "AskUserQuestion":
		// Its answers come from the PreToolUse hook; a permission to ask
		// a question is no question for people.
		return nil, nil
	}
	p := permissionRequest{
		agent: h, sessionID: ev.SessionID, cwd: ev.Cwd, mode: ev.PermissionMode,
		tool: ev.ToolName, input: ev.ToolInput, toolUseID: ev.ToolUseID,
		changes: true, stop: true,
	}
	p.always, p.alwaysText = claudeRules(ev.PermissionSuggestions)
	return &hookJob{ask: p.ask(func(v permissionVerdict) any { return claudeDecide(p, v) })}, nil
}

// claudeDecision is Claude Code's PermissionRequest decision: allow, with
// the changed input or the rules to add, or deny with a message for the
// model, interrupting the agent when asked to.
type claudeDecision struct {
	Behavior           string            `json:"behavior"`
	UpdatedInput       json.RawMessage   `json:"updatedInput,omitempty"`
	UpdatedPermissions []json.RawMessage `json:"updatedPermissions,omitempty"`
	Message            string            `json:"message,omitempty"`
	Interrupt          bool              `json:"interrupt,omitempty"`
}

// claudeDecide is the output for verdict v on request p.
func claudeDecide(p permissionRequest, v permissionVerdict) any {
	d := claudeDecision{Behavior: v.behavior, Message: v.message, Interrupt: v.interrupt}
	if v.always {
		d.UpdatedPermissions = p.always
	}
	if v.changed != "" {
		in, err := p.updatedInput(v.changed)
		if err != nil {
			d = claudeDecision{Behavior: "deny", Message: "The change typed in chat could not be applied (" + err.Error() + "); nothing ran."}
		}
		d.UpdatedInput = in
	}
	return permissionOutput{HookSpecificOutput: permissionSpecific{HookEventName: "PermissionRequest", Decision: d}}
}

// claudeRules picks the suggestions "Always allow" echoes as
// updatedPermissions (as the local dialog's "don't ask again" does): those
// that add allow rules, and the switch to accepting edits. It describes
// them: "Adds allow rule Bash(npm test:*) to .claude/settings.local.json",
// "Accept edits for this session". Other modes (bypassing every prompt)
// are never offered from chat.
func claudeRules(suggestions []json.RawMessage) ([]json.RawMessage, string) {
	var picked []json.RawMessage
	var texts []string
	for _, raw := range suggestions {
		var s claudeSuggestion
		if json.Unmarshal(raw, &s) != nil {
			continue
		}
		where := claudeDestinations[s.Destination]
		if where == "" {
			where = "to " + s.Destination
		}
		switch {
		case s.Type == "addRules" && s.Behavior == "allow" && len(s.Rules) > 0:
			var rules []string
			for _, r := range s.Rules {
				rules = append(rules, ruleText(r.ToolName, r.RuleContent))
			}
			word := "rule"
			if len(rules) > 1 {
				word = "rules"
			}
			texts = append(texts, fmt.Sprintf("adds allow %s %s %s", word, strings.Join(rules, ", "), where))
		case s.Type == "setMode" && s.Mode == "acceptEdits":
			if s.Destination != "session" {
				where = "from now on (" + strings.TrimPrefix(where, "to ") + ")"
			}
			texts = append(texts, "accept edits "+where)
		default:
			continue
		}
		picked = append(picked, compactRaw(raw))
	}
	if len(picked) == 0 {
		return nil, ""
	}
	text := strings.Join(texts, "; ")
	return picked, strings.ToUpper(text[:1]) + text[1:]
}

// compactRaw removes the insignificant spaces of a JSON value.
func compactRaw(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
