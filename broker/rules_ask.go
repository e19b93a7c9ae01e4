package broker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// AuditAllowedByRule is the audit entry of a question a rule allowed at
// once (AskRequest.AllowedByRule): By is the rule's responder, Detail
// "rule <id>: <what it allows>".
const AuditAllowedByRule = "allowed_by_rule"

// RuleResponder is who answers a question a rule allowed: channel
// "rule", user "rule:<id>".
func RuleResponder(r *Rule) Responder {
	return Responder{Channel: RuleChannel, User: "rule:" + strconv.FormatInt(r.ID, 10), Name: "rule " + strconv.FormatInt(r.ID, 10)}
}

// RuleAsk is the ask of a call that an approval rule allows (POST
// /v1/rules/allowed): the question, as an AskRequest, with the rule's id
// and the call. Its JSON is the ask's with "allowed_by_rule" and
// "tool_call" beside the question's fields.
type RuleAsk struct {
	AskRequest
	AllowedByRule int64     `json:"allowed_by_rule"`
	ToolCall      *ToolCall `json:"tool_call"`
}

// AskAllowedByRule records the question of a call that rule
// req.AllowedByRule allows: stored and answered at once by the rule
// (RuleResponder), with an AuditAllowedByRule entry, and never posted
// anywhere. The rule must exist, be in force for agent and allow
// req.ToolCall (MatchRule runs again here), which must not be risky;
// otherwise nothing is stored and the error names the field. The
// question's session and tool-call id make it idempotent as an ask is.
func (b *Broker) AskAllowedByRule(ctx context.Context, agent string, req *RuleAsk) (*Question, bool, error) {
	prompts, err := validateRequest(&req.AskRequest)
	if err != nil {
		return nil, false, err
	}
	rule, err := b.allowingRule(ctx, agent, req)
	if err != nil {
		return nil, false, err
	}
	q, err := b.newQuestion(agent, &req.AskRequest, prompts)
	if err != nil {
		return nil, false, err
	}
	// Nothing is posted, reminded or escalated: the rule answers it now.
	q.Targets, q.Reminders = nil, nil
	var stored *Question
	var created bool
	for range 8 {
		q.ID = NewID()
		stored, created, err = b.store.Create(ctx, q, nil)
		if !errors.Is(err, ErrIDTaken) {
			break
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("broker: store question: %w", err)
	}
	if !created {
		if !sameAsk(stored.Fingerprint, q.Fingerprint) {
			return stored, false, fmt.Errorf("%w: session_id %q and tool_call_id %q already name question %s (%s) with a different body", ErrConflict, req.SessionID, req.ToolCallID, stored.ID, stored.Status)
		}
		return stored, false, nil
	}
	if b.cfg.Observer != nil {
		b.cfg.Observer.Asked(stored)
	}
	who := RuleResponder(rule)
	now := b.cfg.Now().UTC().Truncate(time.Millisecond)
	entry := AuditEntry{At: now, Kind: AuditAllowedByRule, By: &who, Detail: fmt.Sprintf("rule %d: %s", rule.ID, rule.Describe())}
	if err := b.store.AddAudit(ctx, stored.ID, entry); err != nil {
		return nil, false, fmt.Errorf("broker: audit of rule %d: %w", rule.ID, err)
	}
	answers := map[string]Answer{}
	for _, p := range stored.Prompts {
		answers[p.Question] = Answer{CustomText: "Allowed by rule " + strconv.FormatInt(rule.ID, 10), AnsweredBy: &who}
	}
	res, err := b.Resolve(ctx, stored.ID, Resolution{Status: StatusAnswered, Answers: answers, AnsweredBy: &who, ResolvedAt: now})
	if err != nil {
		return nil, false, fmt.Errorf("broker: resolve by rule %d: %w", rule.ID, err)
	}
	b.log.Info("question allowed by rule", "question_id", res.ID, "agent", agent, "rule", rule.ID)
	return res, true, nil
}

// allowingRule returns the rule req.AllowedByRule names, once it is
// checked to allow req.ToolCall for agent.
func (b *Broker) allowingRule(ctx context.Context, agent string, req *RuleAsk) (*Rule, error) {
	id := req.AllowedByRule
	switch {
	case id < 1:
		return nil, fieldErr("allowed_by_rule", "%d is not a rule id", id)
	case req.ToolCall == nil:
		return nil, fieldErr("tool_call", "is required with allowed_by_rule: send the call the rule allows (tool, input, cwd)")
	}
	if err := req.ToolCall.Check(); err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return nil, fieldErr("tool_call."+fe.Field, "%s", fe.Message)
		}
		return nil, err
	}
	if req.ToolCall.Risky {
		return nil, fieldErr("tool_call.risky", "a risky call is never allowed by a rule: ask people")
	}
	rules, err := b.Rules(ctx, agent, true)
	if err != nil {
		return nil, err
	}
	r := ruleByID(rules, id)
	switch {
	case r == nil:
		return nil, fieldErr("allowed_by_rule", "there is no rule %d for this agent", id)
	case r.Revoked != nil:
		return nil, fieldErr("allowed_by_rule", "rule %d was revoked", id)
	case MatchRule([]Rule{*r}, agent, req.ToolCall.Tool, req.ToolCall.Input.Map(), req.ToolCall.Cwd) == nil:
		return nil, fieldErr("allowed_by_rule", "rule %d (%s) does not allow this call", id, r.Describe())
	}
	return r, nil
}
