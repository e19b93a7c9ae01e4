package hooks

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// Claude Code's AskUserQuestion answered from chat. Claude Code documents
// this for PreToolUse hooks: return permissionDecision "allow" with
// updatedInput holding the tool's original questions plus "answers", an
// object mapping each question's text to the chosen label (labels of a
// multi-select joined with commas). The questions map one to one onto a
// dialog of the bridge (both allow up to four, of two to four options,
// free text always possible).

// claudeQuestionInput is AskUserQuestion's tool_input.
type claudeQuestionInput struct {
	Questions []struct {
		Question string `json:"question"`
		Header   string `json:"header"`
		Options  []struct {
			Label       string `json:"label"`
			Description string `json:"description"`
		} `json:"options"`
		MultiSelect bool `json:"multiSelect"`
	} `json:"questions"`
}

// claudeQuestionOutput is the PreToolUse decision.
type claudeQuestionOutput struct {
	HookSpecificOutput claudePreToolUse `json:"hookSpecificOutput"`
}

type claudePreToolUse struct {
	HookEventName            string                     `json:"hookEventName"`
	PermissionDecision       string                     `json:"permissionDecision"`
	PermissionDecisionReason string                     `json:"permissionDecisionReason,omitempty"`
	UpdatedInput             map[string]json.RawMessage `json:"updatedInput,omitempty"`
}

func claudeQuestion(h agentHook, ev claudeEvent) (*hookAsk, error) {
	var in claudeQuestionInput
	var echo map[string]json.RawMessage
	if err := json.Unmarshal(ev.ToolInput, &in); err != nil {
		return nil, fmt.Errorf("AskUserQuestion tool_input: %w", err)
	}
	if err := json.Unmarshal(ev.ToolInput, &echo); err != nil {
		return nil, fmt.Errorf("AskUserQuestion tool_input: %w", err)
	}
	if len(in.Questions) == 0 {
		return nil, fmt.Errorf("AskUserQuestion tool_input has no questions")
	}
	var prompts []client.Prompt
	for _, cq := range in.Questions {
		p := client.Prompt{
			Question:    cq.Question,
			Header:      cutText(cq.Header, broker.MaxHeaderChars),
			MultiSelect: cq.MultiSelect,
		}
		for _, o := range cq.Options {
			p.Options = append(p.Options, client.Option{Label: o.Label, Description: cutText(o.Description, broker.MaxDescriptionChar)})
		}
		prompts = append(prompts, p)
	}
	session := hookSession(h, ev.SessionID)
	ctx := h.title + " asks."
	if ev.Cwd != "" {
		ctx += "\nDirectory: " + cutText(ev.Cwd, valueMax)
	}
	ctx += "\nSession: " + session
	q := client.Question{SessionID: session, Prompts: prompts, Context: ctx}
	reuse := ev.ToolUseID != "" && len(ev.ToolUseID) <= 150
	if reuse {
		q.ToolCallID = ev.ToolUseID
	} else {
		q.ToolCallID = "ask-" + inputDigest(ev.ToolName, ev.ToolInput)
	}
	return &hookAsk{q: q, reuseEnded: reuse, decide: func(res *client.Result) any {
		return claudeAnswers(res, in, echo)
	}}, nil
}

// claudeAnswers maps the ended dialog to the PreToolUse output: the
// answers for an answered dialog, a denial with the person's words for a
// declined one, and nothing (Claude Code's own dialog) otherwise.
func claudeAnswers(res *client.Result, in claudeQuestionInput, echo map[string]json.RawMessage) any {
	who := "someone"
	if r := res.AnsweredBy; r != nil {
		who = broker.WhoText(&broker.Responder{Channel: r.Channel, User: r.User, Name: r.Name})
	}
	out := claudePreToolUse{HookEventName: "PreToolUse"}
	switch res.Status {
	case client.StatusDeclined:
		out.PermissionDecision = "deny"
		out.PermissionDecisionReason = who + " declined to answer in chat"
		if res.NotReady {
			out.PermissionDecisionReason = who + " wants to discuss before answering"
		}
		if res.Reason != "" {
			out.PermissionDecisionReason += ": " + res.Reason
		}
		return claudeQuestionOutput{HookSpecificOutput: out}
	case client.StatusAnswered:
	default:
		return nil
	}
	answers := map[string]string{}
	for _, cq := range in.Questions {
		a, ok := res.Answers[cq.Question]
		if !ok {
			return nil
		}
		answers[cq.Question] = answerText(a)
	}
	b, err := json.Marshal(answers)
	if err != nil {
		return nil
	}
	updated := make(map[string]json.RawMessage, len(echo)+1)
	for k, v := range echo {
		updated[k] = v
	}
	updated["answers"] = b
	out.PermissionDecision = "allow"
	out.PermissionDecisionReason = "Answered in chat by " + who
	out.UpdatedInput = updated
	return claudeQuestionOutput{HookSpecificOutput: out}
}

// answerText is one answer as AskUserQuestion takes it: the label, the
// labels joined with ", " for a multi-select, or the typed text.
func answerText(a client.Answer) string {
	if a.Skipped {
		return "(skipped)"
	}
	vals := append([]string(nil), a.Selected...)
	if a.CustomText != "" {
		vals = append(vals, a.CustomText)
	}
	return strings.Join(vals, ", ")
}
