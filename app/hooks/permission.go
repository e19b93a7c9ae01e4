package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// The options of a permission question. "Always allow" is offered only
// when the agent suggested a rule or a mode; "Allow with changes" only
// where the agent takes a changed input (Claude Code) and the call has a
// command or a path to change; "Deny and stop" only where the agent can be
// interrupted (Claude Code). Typed text alone denies with a message.
const (
	labelAllowOnce    = "Allow once"
	labelAlwaysAllow  = "Always allow"
	labelAllowChanged = "Allow with changes"
	labelDeny         = "Deny"
	labelDenyStop     = "Deny and stop"
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
	// rule is the bridge's approval rule "Always allow" makes (rules.go),
	// or nil.
	rule *broker.Rule
	// changes: the agent runs a changed input (updatedInput), so "Allow
	// with changes" is offered for a call with a command or a path.
	// stop: the agent can be interrupted, so "Deny and stop" is offered.
	changes, stop bool
}

// permissionVerdict is what the person decided.
type permissionVerdict struct {
	behavior string // "allow" or "deny"
	always   bool
	message  string
	// interrupt: deny and stop the agent.
	interrupt bool
	// changed is the command or path to run instead ("Allow with
	// changes"), as the person typed it.
	changed string
}

// editableField is the field of the tool's input that "Allow with
// changes" replaces, and what people call it: the command of Bash, the
// path of a file written.
func editableField(tool string) (field, what string) {
	switch tool {
	case "Bash":
		return "command", "command"
	case "Edit", "Write", "MultiEdit":
		return "file_path", "path"
	}
	return "", ""
}

// options are the answers offered, in order. Discord, Slack and Telegram
// show at most broker.MaxOptions; when every option applies, "Deny" makes
// way, as typed text denies and lets the agent go on.
func (p permissionRequest) options() []client.Option {
	opts := []client.Option{{Label: labelAllowOnce, Description: "Run this call; ask again next time"}}
	switch {
	case p.rule != nil:
		o, _ := alwaysOption(p.rule, p.alwaysText)
		opts = append(opts, o)
	case len(p.always) > 0:
		opts = append(opts, client.Option{Label: labelAlwaysAllow, Description: cutText(p.alwaysText, broker.MaxDescriptionChar)})
	}
	if field, what := editableField(p.tool); p.changes && field != "" {
		opts = append(opts, client.Option{Label: labelAllowChanged, Description: "Pick this with a note holding the corrected " + what + "; that runs instead", Edit: p.editText(field)})
	}
	deny := client.Option{Label: labelDeny, Description: "Refuse; or type a message to the agent instead"}
	if !p.stop {
		return append(opts, deny)
	}
	stop := client.Option{Label: labelDenyStop, Description: "Refuse and stop the agent: it waits for you at the terminal"}
	if len(opts)+2 > broker.MaxOptions {
		stop.Description += "; type a message instead to refuse and let it go on"
		return append(opts, stop)
	}
	return append(opts, deny, stop)
}

// question builds the approval question: what the call risks, the tool
// and a preview of its input; the working directory, the session and,
// when the preview is shortened, the whole input as context.
func (p permissionRequest) question() client.Question {
	var head []string
	for _, r := range Risks(p.tool, p.input, p.cwd) {
		head = append(head, "⚠ "+r.Text)
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
	context := strings.Join(ctx, "\n")

	// The warning and the title take their room first: the preview is
	// never cut silently, neither here nor by the length check.
	title := "Allow " + previewOf(p.tool, nil, 0).subject + "?"
	room := broker.MaxQuestionChars - utf8.RuneCountInString(strings.Join(append(head, title, shortenedWarning(1<<30, 1<<30, "command", false)), "\n")) - 2
	pv := previewOf(p.tool, p.input, min(previewMax, room))
	title = "Allow " + pv.subject + "?"
	if pv.omitted > 0 {
		attached := context + "\n\nFull " + pv.fullName + ":\n" + pv.full
		fits := utf8.RuneCountInString(attached) <= broker.MaxContextChars
		if fits {
			context = attached
		}
		head = append(head, shortenedWarning(pv.omitted, utf8.RuneCountInString(pv.full), pv.fullName, fits))
	}
	text := strings.Join(append(head, title), "\n")
	if pv.body != "" {
		text += "\n" + pv.body
	}
	return client.Question{
		SessionID:  hookSession(p.agent, p.sessionID),
		ToolCallID: p.key(),
		Header:     p.agent.title,
		Question:   cutText(text, broker.MaxQuestionChars),
		Options:    p.options(),
		Context:    cutText(context, broker.MaxContextChars),
	}
}

// shortenedWarning says that the preview leaves omitted characters out,
// and where the whole is: attached below (in the question's context), or,
// when it is too long to attach, nowhere but the agent's terminal.
func shortenedWarning(omitted, total int, what string, attached bool) string {
	if attached {
		return fmt.Sprintf("⚠ shortened: %s more characters — the full %s is attached below", thousands(omitted), what)
	}
	return fmt.Sprintf("⚠ shortened: %s more characters, and the full %s (%s characters) is too long to attach: deny unless you can read it at the terminal",
		thousands(omitted), what, thousands(total))
}

// thousands writes n with commas: 12,345.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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
//
// The bridge's rules cover the call when its tool is one they read and it
// is not risky: then a rule may allow it without a question, and "Always
// allow" offers the rule the call makes. When the agent's own rules do
// not fit beside it in the option's description, picking it applies only
// the bridge's rule.
func (p permissionRequest) ask(output func(v permissionVerdict) any) *hookAsk {
	var rules *hookRules
	agentRules := true // "Always allow" applies the agent's own rules
	if call := p.ruleCall(); call != nil {
		rules = &hookRules{call: *call, allow: func() any { return output(permissionVerdict{behavior: "allow"}) }}
		if p.rule = p.ruleOffer(call); p.rule != nil {
			rules.offer = p.rule
			if _, agentRules = alwaysOption(p.rule, p.alwaysText); !agentRules {
				p.always, p.alwaysText = nil, ""
			}
		}
	}
	q := p.question()
	picked := func(res *client.Result) (permissionVerdict, bool) {
		v, ok := readVerdict(res, q.Question)
		return v, ok && offered(res, q)
	}
	return &hookAsk{q: q, reuseEnded: q.ToolCallID == p.toolUseID, rules: rules,
		decide: func(res *client.Result) any {
			v, ok := picked(res)
			if !ok {
				return nil
			}
			// The output gives the agent's rules with an "Always allow"
			// that offered them only.
			v.always = v.always && agentRules
			return output(v)
		},
		always: func(res *client.Result) bool {
			v, ok := picked(res)
			return ok && v.always
		},
	}
}

// offered reports whether the options picked in res are options of q: an
// answer the question did not offer (it cannot happen through the
// bridge, which checks choices) decides nothing.
func offered(res *client.Result, q client.Question) bool {
	for _, label := range res.Answers[q.Question].Selected {
		if !slices.ContainsFunc(q.Options, func(o client.Option) bool { return strings.EqualFold(o.Label, label) }) {
			return false
		}
	}
	return true
}

// editText is the command or path "Allow with changes" starts from, for
// the person to change in the inbox: the field as the agent sent it, or
// "" when the preview masks a secret in it (the inbox would show what the
// card hides) or it is too long for the note.
func (p permissionRequest) editText(field string) string {
	in, err := decodeInput(p.input)
	m, _ := in.(map[string]any)
	if err != nil || m == nil {
		return ""
	}
	v, _ := m[field].(string)
	if maskText(v) != v || utf8.RuneCountInString(v) > broker.MaxContextChars || !printable(v) {
		return ""
	}
	return v
}

// printable reports whether s holds only printable characters, spaces,
// tabs and newlines: what the bridge takes in a text people edit.
func printable(s string) bool {
	for _, r := range s {
		if r != '\n' && r != '\t' && !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// updatedInput is the call's input with the editable field replaced by
// the person's text; a relative path is taken from the working
// directory, as the agent's file tools want absolute paths.
func (p permissionRequest) updatedInput(changed string) (json.RawMessage, error) {
	field, what := editableField(p.tool)
	if field == "" {
		return nil, fmt.Errorf("%s has no %s to change", p.tool, what)
	}
	in, err := parseObject(p.input, "the tool input")
	if err != nil {
		return nil, err
	}
	if what == "path" && !filepath.IsAbs(changed) && p.cwd != "" {
		changed = filepath.Join(p.cwd, changed)
	}
	in.set(field, marshalNoEscape(changed))
	return in.raw(), nil
}

// readVerdict maps an ended permission question to a decision. Only a
// person's act decides: a timeout, a cancel or a skip decides nothing.
// A note beside Deny or Deny and stop is the message to the agent; beside
// Allow with changes it is what runs instead; beside Allow once or Always
// allow it has nowhere to go (an allow carries no message).
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
	note := strings.TrimSpace(a.CustomText)
	denied := "Denied in chat by " + who + "."
	if note != "" {
		denied = "Denied in chat by " + who + ": " + note
	}
	switch {
	case len(a.Selected) == 0 && note != "":
		return permissionVerdict{behavior: "deny", message: denied}, true
	case len(a.Selected) != 1:
		return permissionVerdict{}, false
	}
	switch choice := a.Selected[0]; {
	case strings.EqualFold(choice, labelAllowOnce):
		return permissionVerdict{behavior: "allow"}, true
	case broker.IsAlwaysAllow(choice):
		return permissionVerdict{behavior: "allow", always: true}, true
	case strings.EqualFold(choice, labelAllowChanged) && note == "":
		return permissionVerdict{behavior: "deny", message: who + " chose " + labelAllowChanged + " in chat without typing the change; nothing ran. Ask again with the corrected call."}, true
	case strings.EqualFold(choice, labelAllowChanged):
		return permissionVerdict{behavior: "allow", changed: note}, true
	case strings.EqualFold(choice, labelDeny):
		return permissionVerdict{behavior: "deny", message: denied}, true
	case strings.EqualFold(choice, labelDenyStop):
		return permissionVerdict{behavior: "deny", message: denied, interrupt: true}, true
	}
	return permissionVerdict{}, false
}

// permissionOutput is the PermissionRequest decision both agents read;
// Decision is a claudeDecision or a codexDecision.
type permissionOutput struct {
	HookSpecificOutput permissionSpecific `json:"hookSpecificOutput"`
}

type permissionSpecific struct {
	HookEventName string `json:"hookEventName"`
	Decision      any    `json:"decision"`
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
