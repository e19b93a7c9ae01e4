package hooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// Claude Code's permission prompts relayed by its channel protocol
// (`bridge channel`): the same question as the PermissionRequest hook's,
// built from what the protocol carries (the tool's name, the dialog's
// description, and a preview of the input as JSON cut to 200
// characters), and answered Allow once or Deny. There is no "Always
// allow": a channel verdict changes no rule.

// ChannelPrompt is one relayed permission prompt.
type ChannelPrompt struct {
	// RequestID names the prompt in Claude Code (five lowercase letters).
	RequestID string
	// Tool is the tool Claude wants to use ("Bash").
	Tool string
	// Description is what the terminal dialog shows about the call.
	Description string
	// InputPreview is the tool's input as JSON, possibly cut short.
	InputPreview string
}

// channelRequestIDRe is what a request id may look like: Claude Code's are
// five lowercase letters; anything that fits in a question key is taken.
var channelRequestIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Validate reports the first field that makes the prompt unusable,
// naming it.
func (p ChannelPrompt) Validate() error {
	switch {
	case p.RequestID == "":
		return fmt.Errorf("request_id: missing; Claude Code sends five lowercase letters")
	case !channelRequestIDRe.MatchString(p.RequestID):
		return fmt.Errorf("request_id: %q is not an id (Claude Code sends five lowercase letters)", cutText(p.RequestID, 80))
	case strings.TrimSpace(p.Tool) == "":
		return fmt.Errorf("tool_name: missing; it names the tool Claude wants to use, such as Bash")
	case len(p.Tool) > 200 || strings.ContainsAny(p.Tool, "\r\n"):
		return fmt.Errorf("tool_name: %q is not a tool name (one line of at most 200 bytes)", cutText(p.Tool, 80))
	}
	return nil
}

// channelPreviewCut says that Claude Code's preview ends before the input.
const channelPreviewCut = "… (Claude Code's preview ends here)"

// Question is the question people see for the prompt, in session: "Claude
// Code asks: allow Bash?" with the readable preview of the input, and the
// description, the request and where it came from as context, which also
// says that people may write to the session under it once it is
// answered. Its options are Allow once and Deny; typed text denies.
func (p ChannelPrompt) Question(session string) client.Question {
	subject, body := channelPreview(p.Tool, p.InputPreview)
	text := "Claude Code asks: allow " + subject + "?"
	if body != "" {
		text += "\n" + body
	}
	ctx := []string{"Relayed from Claude Code's terminal, where the same prompt is open: the first answer, here or there, applies."}
	if d := strings.TrimSpace(p.Description); d != "" && !strings.Contains(body, d) {
		ctx = append(ctx, "Description: "+cutText(maskText(d), valueMax))
	}
	ctx = append(ctx, "Once it is answered, what you write under it (in its thread, as a reply to it, on its card) goes to that Claude Code session.")
	ctx = append(ctx, "Request: "+p.RequestID, "Session: "+session)
	return client.Question{
		SessionID: session,
		Header:    "Claude Code",
		Question:  cutText(text, broker.MaxQuestionChars),
		Options: []client.Option{
			{Label: labelAllowOnce, Description: "Run this call; ask again next time"},
			{Label: labelDeny, Description: "Refuse; or type a note to Claude instead"},
		},
		Context: cutText(strings.Join(ctx, "\n"), broker.MaxContextChars),
	}
}

// channelPreview is toolPreview of the input Claude Code previewed. A
// preview cut inside the JSON is read as far as it goes when closing it
// makes an object ("$ rm -rf bu…"); one that still does not parse is
// shown as text, with its secrets masked.
func channelPreview(tool, preview string) (subject, body string) {
	preview = strings.TrimSpace(preview)
	if preview == "" {
		subject, _ = toolPreview(tool, json.RawMessage(`{}`))
		return subject, ""
	}
	for _, end := range []string{"", `"}`, "}", `"]}`, "]}"} {
		var m map[string]any
		if json.Unmarshal([]byte(preview+end), &m) != nil {
			continue
		}
		subject, body = toolPreview(tool, json.RawMessage(preview+end))
		if end != "" {
			body += "\n" + channelPreviewCut
		}
		return subject, body
	}
	subject, _ = toolPreview(tool, json.RawMessage(`{}`))
	return subject, "Input: " + cutText(maskText(preview), commandMax)
}

// ChannelDecision is what a person decided on a relayed prompt.
type ChannelDecision struct {
	// Behavior is "allow" or "deny".
	Behavior string
	// Note is the person's words for Claude when they gave any (typed
	// text, a decline's reason, a wish to discuss first), with who they
	// are; empty for a plain Allow once or Deny.
	Note string
}

// ChannelVerdict maps an ended question asked with question text to a
// decision: Allow once allows; Deny, typed text and a decline deny. A
// timeout, a cancel or a skip decide nothing (ok false): the terminal's
// dialog does.
func ChannelVerdict(res *client.Result, question string) (d ChannelDecision, ok bool) {
	v, ok := readVerdict(res, question)
	if !ok {
		return ChannelDecision{}, false
	}
	d.Behavior = v.behavior
	a := res.Answers[question]
	if a.CustomText != "" || res.Reason != "" || res.NotReady {
		d.Note = v.message
	}
	return d, true
}
