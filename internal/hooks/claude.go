package hooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// claudeAgent is `bridge hook claude`: Claude Code's PermissionRequest
// hook, and its PreToolUse hook for the AskUserQuestion tool.
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
// as the updatedPermissions of the decision).
type claudeSuggestion struct {
	Type        string `json:"type"`
	Behavior    string `json:"behavior"`
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

func claudeHandle(h agentHook, payload []byte) (*hookAsk, error) {
	var ev claudeEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("the event on standard input is not Claude Code hook JSON: %w", err)
	}
	switch {
	case ev.HookEventName == "PreToolUse" && ev.ToolName == "AskUserQuestion":
		return claudeQuestion(h, ev)
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
	}
	p.always, p.alwaysText = claudeRules(ev.PermissionSuggestions)
	return p.ask(func(v permissionVerdict) any {
		d := permissionDecision{Behavior: v.behavior, Message: v.message}
		if v.always {
			d.UpdatedPermissions = p.always
		}
		return permissionOutput{HookSpecificOutput: permissionSpecific{HookEventName: "PermissionRequest", Decision: d}}
	}), nil
}

// claudeRules picks the suggestions that add allow rules, which "Always
// allow" echoes as updatedPermissions (as the local dialog's "don't ask
// again" does), and describes them: "Adds allow rule Bash(npm test:*) to
// .claude/settings.local.json".
func claudeRules(suggestions []json.RawMessage) ([]json.RawMessage, string) {
	var picked []json.RawMessage
	var texts []string
	for _, raw := range suggestions {
		var s claudeSuggestion
		if json.Unmarshal(raw, &s) != nil || s.Type != "addRules" || s.Behavior != "allow" || len(s.Rules) == 0 {
			continue
		}
		var rules []string
		for _, r := range s.Rules {
			rules = append(rules, ruleText(r.ToolName, r.RuleContent))
		}
		where := claudeDestinations[s.Destination]
		if where == "" {
			where = "to " + s.Destination
		}
		word := "rule"
		if len(rules) > 1 {
			word = "rules"
		}
		picked = append(picked, compactRaw(raw))
		texts = append(texts, fmt.Sprintf("allow %s %s %s", word, strings.Join(rules, ", "), where))
	}
	if len(picked) == 0 {
		return nil, ""
	}
	return picked, "Adds " + strings.Join(texts, "; ")
}

// compactRaw removes the insignificant spaces of a JSON value.
func compactRaw(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
