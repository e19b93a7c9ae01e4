package broker

import (
	"context"
	"time"
)

// RuleStore is the part of a Store that keeps the approval rules
// (rules.go), shared by every instance of the bridge. Rules are few (a
// team makes tens, not thousands), so they are read whole.
type RuleStore interface {
	// AddRule stores r (checked by the caller) under a new id, drawn
	// from a counter that never gives an id twice, also to concurrent
	// calls on several instances; it returns the rule as stored.
	AddRule(ctx context.Context, r Rule) (*Rule, error)
	// Rules returns the rules f selects, oldest (lowest id) first.
	Rules(ctx context.Context, f RuleFilter) ([]Rule, error)
	// RevokeRule marks rule id revoked at at by by, and returns it. A
	// rule already revoked keeps its first revocation and is returned as
	// it stands; an unknown id gives ErrNotFound.
	RevokeRule(ctx context.Context, id int64, by Responder, at time.Time) (*Rule, error)
}
