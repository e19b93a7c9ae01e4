package redis

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.RuleStore = (*Store)(nil)

// The approval rules live under one hash tag, so that the counter and
// the hash are in one slot of a cluster and the revocation's script may
// touch the hash:
//
//	P{rules}:seq   counter of rule ids (INCR: never gives an id twice)
//	P{rules}:all   hash id -> the rule as JSON
//
// Rules are few and never expire: Purge leaves them.
func (k *keys) rulesSeq() string { return k.prefix + "{rules}:seq" }
func (k *keys) rulesAll() string { return k.prefix + "{rules}:all" }

// swapRuleScript replaces a rule's JSON only while it is still old: a
// compare-and-set, which changes nothing when run twice.
var swapRuleScript = newIdempotentScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1`)

// AddRule draws the rule's id from the counter and stores it.
func (s *Store) AddRule(ctx context.Context, r broker.Rule) (*broker.Rule, error) {
	id, err := s.c.Incr(ctx, s.k.rulesSeq()).Result()
	if err != nil {
		return nil, wrap("add rule", err)
	}
	r.ID = id
	data, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("redis store: add rule: %w", err)
	}
	if err := s.c.HSet(ctx, s.k.rulesAll(), strconv.FormatInt(id, 10), data).Err(); err != nil {
		return nil, wrap("add rule", err)
	}
	return &r, nil
}

// Rules reads every rule and returns those f selects, by id.
func (s *Store) Rules(ctx context.Context, f broker.RuleFilter) ([]broker.Rule, error) {
	all, err := s.c.HGetAll(ctx, s.k.rulesAll()).Result()
	if err != nil {
		return nil, wrap("rules", err)
	}
	var out []broker.Rule
	for id, data := range all {
		var r broker.Rule
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			return nil, fmt.Errorf("redis store: rules: rule %s: %w", id, err)
		}
		if f.Keep(r) {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b broker.Rule) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// RevokeRule marks rule id revoked with a compare-and-set on its JSON,
// read again when another revocation came first.
func (s *Store) RevokeRule(ctx context.Context, id int64, by broker.Responder, at time.Time) (*broker.Rule, error) {
	field := strconv.FormatInt(id, 10)
	for range 8 {
		old, err := s.c.HGet(ctx, s.k.rulesAll(), field).Result()
		switch {
		case errors.Is(err, goredis.Nil):
			return nil, fmt.Errorf("redis store: revoke rule: %w: there is no rule %d", broker.ErrNotFound, id)
		case err != nil:
			return nil, wrap("revoke rule", err)
		}
		var r broker.Rule
		if err := json.Unmarshal([]byte(old), &r); err != nil {
			return nil, fmt.Errorf("redis store: revoke rule %d: %w", id, err)
		}
		if r.Revoked != nil {
			return &r, nil
		}
		at := at.UTC().Truncate(time.Millisecond)
		r.Revoked, r.RevokedBy = &at, &by
		data, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("redis store: revoke rule %d: %w", id, err)
		}
		n, err := swapRuleScript.Run(ctx, s.c, []string{s.k.rulesAll()}, field, old, data).Int()
		if err != nil {
			return nil, wrap("revoke rule", err)
		}
		if n == 1 {
			return &r, nil
		}
	}
	return nil, fmt.Errorf("redis store: revoke rule %d: %w", id, broker.ErrConflict)
}
