package client

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
)

// Rule is an approval rule the bridge keeps: a tool call it matches is
// allowed without asking anyone, for one agent or every agent (Agent
// ""). A person made it by picking "Always allow" (docs/agents.md).
type Rule struct {
	ID    int64  `json:"id"`
	Agent string `json:"agent,omitempty"`
	// Tool is Bash, Edit, Write or MultiEdit; Kind is "exact", "prefix"
	// (Bash: the command and arguments without shell operators) or
	// "glob" (file tools: path.Match on the absolute path).
	Tool    string `json:"tool"`
	Kind    string `json:"kind"`
	Pattern string `json:"pattern"`
	// Project is the directory the rule holds in (and below); "" for
	// anywhere.
	Project   string     `json:"project,omitempty"`
	Question  string     `json:"question,omitempty"`
	By        Responder  `json:"by"`
	At        time.Time  `json:"at"`
	Reason    string     `json:"reason,omitempty"`
	Revoked   *time.Time `json:"revoked,omitempty"`
	RevokedBy *Responder `json:"revoked_by,omitempty"`
}

// RuleRequest asks for a rule made from a person's answer: QuestionID is
// the agent's question on which a person picked the "Always allow"
// option that offered this very rule.
type RuleRequest struct {
	QuestionID string `json:"question_id"`
	Tool       string `json:"tool"`
	Kind       string `json:"kind"`
	Pattern    string `json:"pattern"`
	Project    string `json:"project,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// ToolCall is one call of a tool that a rule may allow: the tool, its
// input object as the agent sent it, the working directory. Risky says
// the caller found a risk in it; no rule allows a risky call.
type ToolCall struct {
	Tool  string         `json:"tool"`
	Input map[string]any `json:"input"`
	Cwd   string         `json:"cwd,omitempty"`
	Risky bool           `json:"risky,omitempty"`
}

type rulesBody struct {
	Rules []Rule `json:"rules"`
}

type ruleBody struct {
	Rule *Rule `json:"rule"`
}

// Rules lists the rules in force for the agent: its own and every
// agent's (GET /v1/rules); with revoked, the revoked ones too.
func (c *Client) Rules(ctx context.Context, revoked bool) ([]Rule, error) {
	path := "/v1/rules"
	if revoked {
		path += "?revoked=true"
	}
	var out rulesBody
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return out.Rules, nil
}

// AddRule makes the rule req asks for from a person's answer (POST
// /v1/rules); asking again for the same question returns its rule.
func (c *Client) AddRule(ctx context.Context, req RuleRequest) (*Rule, error) {
	var out ruleBody
	if _, err := c.do(ctx, http.MethodPost, "/v1/rules", req, &out); err != nil {
		return nil, err
	}
	return out.Rule, nil
}

// RevokeRule revokes one of the agent's rules (DELETE /v1/rules/{id})
// and returns it; another agent's rule is an *APIError with status 404.
func (c *Client) RevokeRule(ctx context.Context, id int64) (*Rule, error) {
	var out ruleBody
	if _, err := c.do(ctx, http.MethodDelete, "/v1/rules/"+strconv.FormatInt(id, 10), nil, &out); err != nil {
		return nil, err
	}
	return out.Rule, nil
}

// MatchRule returns the rule that allows call for the agent (POST
// /v1/rules/match), or nil and no error when none does.
func (c *Client) MatchRule(ctx context.Context, call ToolCall) (*Rule, error) {
	var out ruleBody
	_, err := c.do(ctx, http.MethodPost, "/v1/rules/match", call, &out)
	var ae *APIError
	if errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return out.Rule, nil
}

// AllowedByRule records q, the question of call, as allowed by rule
// (POST /v1/rules/allowed): the bridge checks again that the rule allows
// the call, stores the question answered by the rule, and posts it
// nowhere.
func (c *Client) AllowedByRule(ctx context.Context, q Question, rule int64, call ToolCall) (*Result, error) {
	body := struct {
		Question
		AllowedByRule int64    `json:"allowed_by_rule"`
		ToolCall      ToolCall `json:"tool_call"`
	}{q, rule, call}
	var res Result
	if _, err := c.do(ctx, http.MethodPost, "/v1/rules/allowed", body, &res); err != nil {
		return nil, err
	}
	return &res, nil
}
