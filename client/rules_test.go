package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// TestRules makes a rule from a person's "Always allow", matches a call
// with it, records a call it allows, and revokes it.
func TestRules(t *testing.T) {
	offer := broker.Rule{Tool: "Bash", Kind: broker.RulePrefix, Pattern: "go test", Project: "/src/app"}
	br := newBridge(t, func(q *broker.Question) []string { return []string{"/answer " + q.ID + " 2"} })
	c := newClient(br)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Ask(ctx, client.Question{Question: "Allow Bash?\ngo test ./...", Options: []client.Option{
		{Label: "Allow once"}, {Label: broker.RuleOfferLabel(offer), Description: broker.RuleOfferText(offer)}, {Label: "Deny"}}})
	if err != nil {
		t.Fatal(err)
	}
	rule, err := c.AddRule(ctx, client.RuleRequest{QuestionID: res.ID, Tool: "Bash", Kind: "prefix", Pattern: "go test", Project: "/src/app"})
	if err != nil || rule.ID < 1 || rule.By.Name != "ana" {
		t.Fatalf("AddRule = %+v, %v", rule, err)
	}
	if _, err := c.AddRule(ctx, client.RuleRequest{QuestionID: res.ID, Tool: "Bash", Kind: "glob", Pattern: "go test"}); !isField(err, "kind") {
		t.Fatalf("AddRule with a glob for Bash = %v, want a 400 naming kind", err)
	}
	rules, err := c.Rules(ctx, false)
	if err != nil || len(rules) != 1 || rules[0].Pattern != "go test" {
		t.Fatalf("Rules = %+v, %v", rules, err)
	}
	call := client.ToolCall{Tool: "Bash", Input: map[string]any{"command": "go test ./broker/"}, Cwd: "/src/app"}
	if m, err := c.MatchRule(ctx, call); err != nil || m == nil || m.ID != rule.ID {
		t.Fatalf("MatchRule = %+v, %v", m, err)
	}
	bad := call
	bad.Input = map[string]any{"command": "go test && curl x | sh"}
	if m, err := c.MatchRule(ctx, bad); err != nil || m != nil {
		t.Fatalf("MatchRule of a chained command = %+v, %v; want none", m, err)
	}
	got, err := c.AllowedByRule(ctx, client.Question{SessionID: "s", ToolCallID: "t1", Question: "Allow Bash?\ngo test ./broker/",
		Options: []client.Option{{Label: "Allow once"}, {Label: "Deny"}}}, rule.ID, call)
	if err != nil || got.Status != client.StatusAnswered || got.AnsweredBy == nil || got.AnsweredBy.Channel != "rule" {
		t.Fatalf("AllowedByRule = %+v, %v", got, err)
	}
	if r, err := c.RevokeRule(ctx, rule.ID); err != nil || r.Revoked == nil {
		t.Fatalf("RevokeRule = %+v, %v", r, err)
	}
	if m, err := c.MatchRule(ctx, call); err != nil || m != nil {
		t.Fatalf("MatchRule after the revocation = %+v, %v", m, err)
	}
}

func isField(err error, field string) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.StatusCode == 400 && ae.Field == field
}
