package hooks

import (
	"encoding/json"
	"fmt"
)

// codexAgent is `bridge hook codex`: Codex's PermissionRequest hook. Its
// decision takes behavior allow or deny and a message; Codex reserves
// updatedInput, updatedPermissions and interrupt (a hook returning them
// fails closed), so there is no "Always allow", "Allow with changes" or
// "Deny and stop".
var codexAgent = agentHook{name: "codex", title: "Codex", handle: codexHandle}

// codexEvent is the part of a Codex PermissionRequest event the hook
// reads. tool_input.command holds the shell command of Bash and the patch
// of apply_patch; MCP tools send their arguments; tool_input.description
// is Codex's reason for the approval, when it has one.
type codexEvent struct {
	SessionID      string          `json:"session_id"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
}

func codexHandle(h agentHook, payload []byte) (*hookJob, error) {
	var ev codexEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("the event on standard input is not Codex hook JSON: %w", err)
	}
	if ev.HookEventName != "PermissionRequest" {
		return nil, nil
	}
	if ev.ToolName == "" {
		return nil, fmt.Errorf("the PermissionRequest event has no tool_name")
	}
	p := permissionRequest{
		agent: h, sessionID: ev.SessionID, cwd: ev.Cwd, mode: ev.PermissionMode,
		tool: ev.ToolName, input: ev.ToolInput,
	}
	return &hookJob{ask: p.ask(func(v permissionVerdict) any {
		return permissionOutput{HookSpecificOutput: permissionSpecific{
			HookEventName: "PermissionRequest",
			Decision:      codexDecision{Behavior: v.behavior, Message: v.message},
		}}
	})}, nil
}

// codexDecision is Codex's PermissionRequest decision: behavior and
// message, nothing else. Codex reserves updatedInput, updatedPermissions
// and interrupt, and fails closed when a hook returns them, so this type
// cannot hold them.
type codexDecision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}
