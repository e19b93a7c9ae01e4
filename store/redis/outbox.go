package redis

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// A question has at most one callback delivery, kept in its record; its
// id is "d_" and the question id. The shard's outbox set orders pending
// deliveries by their next attempt.

// deliveryPrefix starts the id of a delivery.
const deliveryPrefix = "d_"

// ClaimDeliveries holds up to limit due deliveries for hold: one pipeline
// reads the due entries of every shard, a second claims the earliest
// limit of them with a script that re-checks each is still due.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, limit int, hold time.Duration) ([]broker.Delivery, error) {
	if limit <= 0 {
		return nil, nil
	}
	due, err := s.earliestDue(ctx, "claim deliveries", s.k.outbox, strconv.FormatInt(usec(now), 10), limit)
	if err != nil || len(due) == 0 {
		return nil, err
	}
	until := now.Add(hold)
	b := s.batch()
	claims := make([]*goredis.Cmd, len(due))
	for i, z := range due {
		id := z.Member.(string)
		claims[i] = b.script(ctx, claimDeliveryScript, []string{s.k.rec(id), s.k.outbox(shardOf(id))},
			id, usec(now), usec(until), nsec(until), nsec(now))
	}
	if err := b.exec(ctx); err != nil {
		return nil, wrap("claim deliveries", err)
	}
	var out []broker.Delivery
	for i, c := range claims {
		rec, err := toRecord(c.Val())
		if err != nil || len(rec) == 0 {
			continue
		}
		d, ok, err := rec.delivery(due[i].Member.(string))
		if err != nil {
			return nil, wrap("claim deliveries", err)
		}
		if ok {
			d.Claim = d.NextAt
			out = append(out, d)
		}
	}
	return out, nil
}

// UpdateDelivery records the outcome of an attempt: a pending delivery is
// rescheduled at d.NextAt, a delivered or failed one leaves the outbox.
// With d.Claim, it records only while the delivery is pending with its
// next attempt still at the claim's end.
func (s *Store) UpdateDelivery(ctx context.Context, d broker.Delivery) error {
	id := d.QuestionID
	if id == "" {
		id = strings.TrimPrefix(d.ID, deliveryPrefix)
	}
	if !validID(id) {
		return fmt.Errorf("redis store: delivery %q: %w", d.ID, broker.ErrNotFound)
	}
	switch d.State {
	case broker.DeliveryPending, broker.DeliveryDelivered, broker.DeliveryFailed:
	default:
		return fmt.Errorf("redis store: update delivery %s: %w", d.ID, &broker.FieldError{Field: "state", Message: fmt.Sprintf("unknown state %q", d.State)})
	}
	updated := d.UpdatedAt
	if updated.IsZero() {
		updated = time.Now()
	}
	claim := ""
	if !d.Claim.IsZero() {
		claim = strconv.FormatInt(nsec(d.Claim), 10)
	}
	r, err := updateDeliveryScript.Run(ctx, s.run, []string{s.k.rec(id), s.k.outbox(shardOf(id))},
		id, d.State, d.Attempts, nsec(d.NextAt), usec(d.NextAt), d.LastError, nsec(updated), claim).Int()
	if err != nil {
		return wrap("update delivery", err)
	}
	switch r {
	case 0:
		return fmt.Errorf("redis store: delivery %s: %w", d.ID, broker.ErrNotFound)
	case -1:
		return fmt.Errorf("redis store: %w: delivery %s was claimed again or finished since its claim", broker.ErrConflict, d.ID)
	}
	return nil
}

// Deliveries lists the callback deliveries of a question (none or one;
// none for an unknown question).
func (s *Store) Deliveries(ctx context.Context, questionID string) ([]broker.Delivery, error) {
	rec, err := s.record(ctx, questionID)
	if errors.Is(err, broker.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d, ok, err := rec.delivery(questionID)
	if err != nil || !ok {
		return nil, err
	}
	return []broker.Delivery{d}, nil
}

// earliestDue reads, in one pipeline, the entries of every shard's sorted
// set (key) scored at or below max, and returns the earliest limit of
// them, earliest first: the due work of a sharded outbox.
func (s *Store) earliestDue(ctx context.Context, op string, key func(int) string, max string, limit int) ([]goredis.Z, error) {
	pipe := s.c.Pipeline()
	cmds := make([]*goredis.ZSliceCmd, shards)
	for n := range shards {
		cmds[n] = pipe.ZRangeByScoreWithScores(ctx, key(n), &goredis.ZRangeBy{Min: "-inf", Max: max, Count: int64(limit)})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, wrap(op, err)
	}
	var due []goredis.Z
	for _, c := range cmds {
		due = append(due, c.Val()...)
	}
	slices.SortFunc(due, func(a, b goredis.Z) int { return cmp.Compare(a.Score, b.Score) })
	return due[:min(limit, len(due))], nil
}
