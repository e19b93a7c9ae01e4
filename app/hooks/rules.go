package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// Approval rules the bridge keeps (docs/agents.md, "Rules the bridge
// keeps"). Before asking, the hook asks the bridge for a rule in force
// that allows the call; a call it finds no risk in and that a rule allows
// is allowed at once, and the bridge records it as a question answered by
// that rule. Otherwise the question offers, as its "Always allow", the
// rule the call makes: picked, the hook has the bridge store it, and
// every later matching call of every agent hook skips the question.

// hookRules is what the rules of the bridge do for one permission
// question.
type hookRules struct {
	// call is the tool call a rule may allow.
	call client.ToolCall
	// offer is the rule "Always allow" makes, nil when the call makes
	// none (its tool is one rules do not cover, it is risky, or the rule
	// would be refused).
	offer *broker.Rule
	// allow is the agent's output for a call a rule allows.
	allow func() any
}

// ruleCall returns the call rules read, or nil when rules do not cover
// the tool or the call is risky: no rule ever allows a risky call, and
// none is offered for one.
func (p permissionRequest) ruleCall() *client.ToolCall {
	if field, _ := editableField(p.tool); field == "" || len(Risks(p.tool, p.input, p.cwd)) > 0 {
		return nil
	}
	var in map[string]any
	if json.Unmarshal(p.input, &in) != nil || in == nil {
		return nil
	}
	return &client.ToolCall{Tool: p.tool, Input: in, Cwd: p.cwd}
}

// ruleOffer returns the rule "Always allow" makes of p, or nil. In a
// project (the working directory): a command is allowed by the prefix
// the agent suggested for its own rule (Claude Code's "Bash(npm test:*)")
// or else as it is; a file tool's path by the glob of its directory
// ("internal/cart/*"), or by the path itself for a file at the project's
// top. Outside a project, or for a rule the bridge would refuse (a prefix
// too short, a pattern too long), there is no offer.
func (p permissionRequest) ruleOffer(call *client.ToolCall) *broker.Rule {
	project := cleanDir(p.cwd)
	if call == nil || project == "" || project == "/" {
		return nil
	}
	r := broker.Rule{Tool: p.tool, Project: project, By: broker.Responder{Channel: "hook", User: p.agent.name}}
	if cmd, ok := call.Input["command"].(string); ok && p.tool == "Bash" {
		r.Kind, r.Pattern = broker.RuleExact, strings.Trim(cmd, " \t")
		if prefix := suggestedPrefix(p.always, cmd); prefix != "" {
			r.Kind, r.Pattern = broker.RulePrefix, prefix
		}
	} else {
		file, _ := call.Input["file_path"].(string)
		if file == "" {
			return nil
		}
		if !path.IsAbs(file) {
			file = path.Join(project, file)
		}
		rel, ok := strings.CutPrefix(path.Clean(file), project+"/")
		if !ok {
			return nil
		}
		r.Kind, r.Pattern = broker.RuleExact, rel
		if dir := path.Dir(rel); dir != "." {
			r.Kind, r.Pattern = broker.RuleGlob, globQuote(dir)+"/*"
		}
	}
	if r.Check() != nil || broker.MatchRule([]broker.Rule{r}, "", r.Tool, call.Input, call.Cwd) == nil ||
		utf8.RuneCountInString(broker.RuleOfferText(r)) > broker.MaxDescriptionChar {
		return nil
	}
	r.By = broker.Responder{}
	return &r
}

// suggestedPrefix returns the command prefix of the agent's own allow
// rule for Bash ("Bash(npm test:*)" gives "npm test") when the command
// starts with it, or "".
func suggestedPrefix(suggestions []json.RawMessage, cmd string) string {
	for _, raw := range suggestions {
		var s claudeSuggestion
		if json.Unmarshal(raw, &s) != nil || s.Type != "addRules" || s.Behavior != "allow" {
			continue
		}
		for _, r := range s.Rules {
			if r.ToolName != "Bash" {
				continue
			}
			prefix, ok := strings.CutSuffix(r.RuleContent, ":*")
			if !ok {
				prefix, ok = strings.CutSuffix(r.RuleContent, " *")
			}
			if ok && broker.PrefixMatches(prefix, cmd) {
				return prefix
			}
		}
	}
	return ""
}

// globQuote escapes the characters path.Match reads in a directory name,
// so that the glob of a directory matches that directory only.
func globQuote(dir string) string {
	var b strings.Builder
	for _, c := range dir {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// alwaysOption is the "Always allow" option of a question that offers
// rule r and, when the agent suggested some, its own rules (alwaysText).
// It says both when both fit a description; when they do not, only the
// bridge's rule is offered and keep is false: what a person picks must
// say everything it does.
func alwaysOption(r *broker.Rule, alwaysText string) (o client.Option, keep bool) {
	o = client.Option{Label: broker.RuleOfferLabel(*r), Description: broker.RuleOfferText(*r)}
	if alwaysText == "" {
		return o, false
	}
	both := o.Description + "; also " + strings.ToLower(alwaysText[:1]) + alwaysText[1:]
	if utf8.RuneCountInString(both) > broker.MaxDescriptionChar {
		return o, false
	}
	o.Description = both
	return o, true
}

// allowByRule asks the bridge for a rule that allows the call and, when
// one does, has the bridge record the question as allowed by it. It
// returns the agent's output, or nil when no rule allows the call or the
// bridge cannot say within the connect timeout (then people are asked).
func allowByRule(ctx context.Context, c *client.Client, a *hookAsk, o hookOptions, logf func(format string, args ...any)) any {
	ctx, cancel := context.WithTimeout(ctx, o.connectTimeout)
	defer cancel()
	rule, err := c.MatchRule(ctx, a.rules.call)
	if err != nil {
		logf("could not ask the bridge for a rule (%v); asking people", err)
		return nil
	}
	if rule == nil {
		return nil
	}
	q := hookQuestion(a, o)
	if !a.reuseEnded {
		q.ToolCallID += "-" + nonce()
	}
	res, err := c.AllowedByRule(ctx, q, rule.ID, a.rules.call)
	var ae *client.APIError
	switch {
	case errors.As(err, &ae):
		// The rule was revoked since, or the key names a question asked
		// before (a re-run hook): people decide, as without the rule.
		logf("rule %d did not allow the call (%s); asking people", rule.ID, ae.Message)
		return nil
	case err != nil:
		logf("could not record the call as allowed by rule %d (%v); asking people", rule.ID, err)
		return nil
	case res.Status != client.StatusAnswered || res.AnsweredBy == nil || res.AnsweredBy.Channel != broker.RuleChannel:
		logf("question %s under this call's key is %s, not allowed by rule %d: waiting for it", res.ID, res.Status, rule.ID)
		return nil
	}
	logf("allowed by the bridge's rule %d (%s, %s `%s`); question %s records it", rule.ID, rule.Tool, rule.Kind, rule.Pattern, res.ID)
	return a.rules.allow()
}

// makeRule has the bridge store the rule offered on the question a person
// answered with "Always allow". The call is allowed either way; a rule
// the bridge refuses is only reported.
func makeRule(ctx context.Context, c *client.Client, a *hookAsk, res *client.Result, o hookOptions, logf func(format string, args ...any)) {
	r := a.rules.offer
	ctx, cancel := context.WithTimeout(ctx, o.connectTimeout)
	defer cancel()
	made, err := c.AddRule(ctx, client.RuleRequest{QuestionID: res.ID, Tool: r.Tool, Kind: r.Kind, Pattern: r.Pattern, Project: r.Project})
	if err != nil {
		logf("the bridge did not keep the rule %s (%v); this call is allowed", broker.RuleOfferText(*r), err)
		return
	}
	logf("the bridge keeps rule %d: %s", made.ID, broker.RuleOfferText(*r))
}
