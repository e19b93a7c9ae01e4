package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// The options of a permission question. "Always allow" is offered only
// when the agent suggested a rule; the Other text denies with a message.
const (
	labelAllowOnce   = "Allow once"
	labelAlwaysAllow = "Always allow"
	labelDeny        = "Deny"
)

// permissionRequest is an agent's request to run one tool call, as both
// agents send it to their PermissionRequest hooks.
type permissionRequest struct {
	agent     agentHook
	sessionID string
	cwd       string
	mode      string
	tool      string
	input     json.RawMessage
	// toolUseID, when the agent sends one, names this very call.
	toolUseID string
	// always are the permission updates "Always allow" applies, and
	// alwaysText says what they do; none means no "Always allow".
	always     []json.RawMessage
	alwaysText string
}

// permissionVerdict is what the person decided.
type permissionVerdict struct {
	behavior string // "allow" or "deny"
	always   bool
	message  string
}

// question builds the approval question: the tool and a preview of its
// input, the working directory and the session as context.
func (p permissionRequest) question() client.Question {
	subject, body := toolPreview(p.tool, p.input)
	text := "Allow " + subject + "?"
	if body != "" {
		text += "\n" + body
	}
	ctx := []string{p.agent.title + " asks for permission."}
	if v, err := decodeInput(p.input); err == nil {
		if m, ok := v.(map[string]any); ok {
			if why := str(m, "description"); why != "" {
				ctx = append(ctx, "Reason: "+cutText(maskText(why), valueMax))
			}
		}
	}
	if p.cwd != "" {
		ctx = append(ctx, "Directory: "+cutText(p.cwd, valueMax))
	}
	session := "Session: " + hookSession(p.agent, p.sessionID)
	if p.mode != "" {
		session += " (permission mode " + p.mode + ")"
	}
	ctx = append(ctx, session)
	opts := []client.Option{{Label: labelAllowOnce, Description: "Run this call; ask again next time"}}
	if len(p.always) > 0 {
		opts = append(opts, client.Option{Label: labelAlwaysAllow, Description: cutText(p.alwaysText, broker.MaxDescriptionChar)})
	}
	opts = append(opts, client.Option{Label: labelDeny, Description: "Refuse; or type a message to the agent instead"})
	return client.Question{
		SessionID:  hookSession(p.agent, p.sessionID),
		ToolCallID: p.key(),
		Header:     p.agent.title,
		Question:   cutText(text, broker.MaxQuestionChars),
		Options:    opts,
		Context:    cutText(strings.Join(ctx, "\n"), broker.MaxContextChars),
	}
}

// key is the question's idempotency key: the tool-use id when the agent
// sends one, else a digest of the tool and its canonical input.
func (p permissionRequest) key() string {
	if p.toolUseID != "" && len(p.toolUseID) <= 150 {
		return p.toolUseID
	}
	return "perm-" + inputDigest(p.tool, p.input)
}

// ask is the question with its mapping of the person's answer to the
// agent's output.
func (p permissionRequest) ask(output func(v permissionVerdict) any) *hookAsk {
	q := p.question()
	return &hookAsk{q: q, reuseEnded: q.ToolCallID == p.toolUseID, decide: func(res *client.Result) any {
		v, ok := readVerdict(res, q.Question)
		if !ok {
			return nil
		}
		return output(v)
	}}
}

// readVerdict maps an ended permission question to a decision. Only a
// person's act decides: a timeout, a cancel or a skip decides nothing.
func readVerdict(res *client.Result, question string) (permissionVerdict, bool) {
	who := "someone"
	if r := res.AnsweredBy; r != nil {
		who = broker.WhoText(&broker.Responder{Channel: r.Channel, User: r.User, Name: r.Name})
	}
	switch res.Status {
	case client.StatusDeclined:
		msg := "Declined in chat by " + who
		if res.NotReady {
			msg = who + " wants to discuss this before deciding"
		}
		if res.Reason != "" {
			msg += ": " + res.Reason
		}
		return permissionVerdict{behavior: "deny", message: msg}, true
	case client.StatusAnswered:
	default:
		return permissionVerdict{}, false
	}
	a, ok := res.Answers[question]
	if !ok || a.Skipped {
		return permissionVerdict{}, false
	}
	if a.CustomText != "" {
		return permissionVerdict{behavior: "deny", message: "Denied in chat by " + who + ": " + a.CustomText}, true
	}
	if len(a.Selected) != 1 {
		return permissionVerdict{}, false
	}
	switch {
	case strings.EqualFold(a.Selected[0], labelAllowOnce):
		return permissionVerdict{behavior: "allow"}, true
	case strings.EqualFold(a.Selected[0], labelAlwaysAllow):
		return permissionVerdict{behavior: "allow", always: true}, true
	case strings.EqualFold(a.Selected[0], labelDeny):
		return permissionVerdict{behavior: "deny", message: "Denied in chat by " + who + "."}, true
	}
	return permissionVerdict{}, false
}

// permissionOutput is the PermissionRequest decision both agents read.
type permissionOutput struct {
	HookSpecificOutput permissionSpecific `json:"hookSpecificOutput"`
}

type permissionSpecific struct {
	HookEventName string             `json:"hookEventName"`
	Decision      permissionDecision `json:"decision"`
}

type permissionDecision struct {
	Behavior           string            `json:"behavior"`
	UpdatedPermissions []json.RawMessage `json:"updatedPermissions,omitempty"`
	Message            string            `json:"message,omitempty"`
}

// hookSession namespaces the agent's session id: "claude:<id>".
func hookSession(a agentHook, id string) string {
	return cutText(a.name+":"+id, broker.MaxIDFieldChars)
}

// inputDigest is the sha256 of the tool name and its input in canonical
// JSON (keys sorted, numbers verbatim), so that the same call gives the
// same key however the agent spaced its JSON.
func inputDigest(tool string, input json.RawMessage) string {
	v, err := decodeInput(input)
	if err != nil {
		v = string(input)
	}
	b, _ := json.Marshal(map[string]any{"tool_name": tool, "tool_input": v})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ruleText names permission rules for people: "Bash(npm test:*)".
func ruleText(toolName, content string) string {
	if content == "" {
		return toolName
	}
	return fmt.Sprintf("%s(%s)", toolName, content)
}
