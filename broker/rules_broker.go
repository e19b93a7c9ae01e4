package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// RuleRequest asks for a rule made from a person's answer: QuestionID
// names the agent's permission question on which a person picked the
// "Always allow" option that offered this rule (RuleOfferText).
type RuleRequest struct {
	QuestionID string `json:"question_id"`
	Tool       string `json:"tool"`
	Kind       string `json:"kind"`
	Pattern    string `json:"pattern"`
	Project    string `json:"project,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// AddRuleFromAnswer stores the rule req asks for, for agent, as made by
// the person who answered req.QuestionID. An agent cannot make a rule by
// itself: the question must be its own, answered by a person (not by a
// rule) with an "Always allow" option whose description offered exactly
// this rule. A question makes one rule: asking again returns it, with
// created false. Every refusal is a *FieldError, and stores nothing.
func (b *Broker) AddRuleFromAnswer(ctx context.Context, agent string, req RuleRequest) (rule *Rule, created bool, err error) {
	r := Rule{Agent: agent, Tool: req.Tool, Kind: req.Kind, Pattern: req.Pattern, Project: req.Project,
		Question: req.QuestionID, Reason: req.Reason, At: b.cfg.Now().UTC().Truncate(time.Millisecond)}
	if req.QuestionID == "" {
		return nil, false, fieldErr("question_id", "is missing: a rule is made from a person's answer to a question")
	}
	q, err := b.Get(ctx, agent, req.QuestionID)
	if errors.Is(err, ErrNotFound) {
		return nil, false, fieldErr("question_id", "there is no question %s of this agent", cutRunes(req.QuestionID, 40))
	}
	if err != nil {
		return nil, false, err
	}
	if q.Status != StatusAnswered || q.AnsweredBy == nil || q.AnsweredBy.Channel == RuleChannel {
		return nil, false, fieldErr("question_id", "question %s was not answered by a person (it is %s)", q.ID, q.Status)
	}
	r.By = *q.AnsweredBy
	if err := r.Check(); err != nil {
		return nil, false, err
	}
	if !offeredRule(q, r) {
		return nil, false, fieldErr("question_id", "the answer to question %s is no %q that offered %s", q.ID, AlwaysAllowLabel, RuleOfferText(r))
	}
	made, err := b.store.Rules(ctx, RuleFilter{Agent: agent, Revoked: true})
	if err != nil {
		return nil, false, fmt.Errorf("broker: rules: %w", err)
	}
	for i := range made {
		if made[i].Question == q.ID && made[i].Agent == agent {
			return &made[i], false, nil
		}
	}
	stored, err := b.store.AddRule(ctx, r)
	if err != nil {
		return nil, false, fmt.Errorf("broker: add rule: %w", err)
	}
	b.log.Info("rule added", "rule", stored.ID, "agent", agent, "question_id", q.ID, "tool", r.Tool, "kind", r.Kind)
	return stored, true, nil
}

// offeredRule reports whether a person answered q by picking an "Always
// allow" option whose description offers r.
func offeredRule(q *Question, r Rule) bool {
	text := RuleOfferText(r)
	for _, a := range q.Answers {
		for _, label := range a.Selected {
			if !IsAlwaysAllow(label) {
				continue
			}
			for _, p := range q.Prompts {
				for _, o := range p.Options {
					if strings.EqualFold(o.Label, label) && strings.Contains(o.Description, text) {
						return true
					}
				}
			}
		}
	}
	return false
}

// Rules returns the rules that apply to agent (its own and those of
// every agent; every rule when agent is ""), with the revoked ones when
// revoked is set.
func (b *Broker) Rules(ctx context.Context, agent string, revoked bool) ([]Rule, error) {
	rules, err := b.store.Rules(ctx, RuleFilter{Agent: agent, Revoked: revoked})
	if err != nil {
		return nil, fmt.Errorf("broker: rules: %w", err)
	}
	return rules, nil
}

// RevokeRule revokes rule id for by. An agent (agent not "") may revoke
// only its own rules: another agent's, or one for every agent, reads as
// unknown (ErrNotFound). agent "" revokes any rule (a person in the web
// inbox). Revoking a revoked rule returns it as it stands.
func (b *Broker) RevokeRule(ctx context.Context, agent string, id int64, by Responder) (*Rule, error) {
	notFound := fmt.Errorf("%w: there is no rule %d", ErrNotFound, id)
	if agent != "" {
		rules, err := b.Rules(ctx, agent, true)
		if err != nil {
			return nil, err
		}
		if r := ruleByID(rules, id); r == nil || r.Agent != agent {
			return nil, notFound
		}
	}
	r, err := b.store.RevokeRule(ctx, id, by, b.cfg.Now())
	if errors.Is(err, ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, fmt.Errorf("broker: revoke rule: %w", err)
	}
	b.log.Info("rule revoked", "rule", id, "agent", r.Agent, "by_channel", by.Channel)
	return r, nil
}

// MatchCall returns the rule in force that allows agent's call, or nil.
// A call the caller found risky is matched by none.
func (b *Broker) MatchCall(ctx context.Context, agent string, call ToolCall) (*Rule, error) {
	if err := call.Check(); err != nil {
		return nil, err
	}
	if call.Risky {
		return nil, nil
	}
	rules, err := b.Rules(ctx, agent, false)
	if err != nil {
		return nil, err
	}
	return MatchRule(rules, agent, call.Tool, call.Input.Map(), call.Cwd), nil
}

func ruleByID(rules []Rule, id int64) *Rule {
	for i := range rules {
		if rules[i].ID == id {
			return &rules[i]
		}
	}
	return nil
}
