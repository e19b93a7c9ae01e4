package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askbridge/askbridge/broker"
)

// Amend replaces the policy state of a pending question at revision rev,
// moves its deadline when asked, and appends the audit entries (sealed
// after the end of the trail, audit.go), in one transaction.
func (s *Store) Amend(ctx context.Context, id string, rev int64, a broker.Amendment) (*broker.Question, error) {
	var out *broker.Question
	err := s.write(ctx, "amend "+id, func(ctx context.Context, tx *wtx) error {
		q, err := s.loadTx(ctx, tx, id)
		if errors.Is(err, broker.ErrNotFound) {
			return fmt.Errorf("sqlite: amend %s: %w", id, broker.ErrNotFound)
		}
		if err != nil {
			return err
		}
		if q.Status != broker.StatusPending {
			return &broker.ClosedError{Question: q}
		}
		if q.State.Rev != rev {
			return fmt.Errorf("sqlite: amend %s: the policy state is at revision %d, not %d: %w", id, q.State.Rev, rev, broker.ErrConflict)
		}
		q.State = a.State
		q.State.Rev = rev + 1
		ev, extended, err := a.ExtendedEvent(q)
		if err != nil {
			return fmt.Errorf("sqlite: amend %s: %w", id, err)
		}
		if !a.ExpiresAt.IsZero() {
			q.ExpiresAt = utcMS(a.ExpiresAt)
			q.Reminders = q.Reminders[:0]
			for _, t := range a.Reminders {
				q.Reminders = append(q.Reminders, utcMS(t))
			}
		}
		data, err := json.Marshal(q)
		if err != nil {
			return fmt.Errorf("encode: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE questions SET data = ?, expires_at = ?, next_reminder_at = ? WHERE id = ? AND status = 'pending'`,
			data, ms(q.ExpiresAt), nullMS(q.NextReminder()), id); err != nil {
			return err
		}
		if err := indexEscalation(ctx, tx, id, q.State.EscalateAt); err != nil {
			return err
		}
		if err := s.addAuditTx(ctx, tx, id, a.Audit); err != nil {
			return err
		}
		if extended {
			if err := appendExtended(ctx, tx, ev); err != nil {
				return err
			}
		}
		out = q
		return nil
	})
	if err != nil {
		return nil, err
	}
	if a.Extended {
		s.feed.publish(broker.Resolved{ID: id, Agent: out.Agent})
	}
	return out, nil
}
