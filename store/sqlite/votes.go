package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askbridge/askbridge/broker"
)

// Amend replaces the policy state of a pending question at revision rev,
// moves its deadline when asked, and appends the audit entries, in one
// transaction.
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
		data, err := broker.EncodeQuestion(q)
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
		if err := insertAudit(ctx, tx, id, a.Audit); err != nil {
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

func insertAudit(ctx context.Context, tx *wtx, id string, entries []broker.AuditEntry) error {
	for _, e := range entries {
		e.At = utcMS(e.At)
		data, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("encode audit entry: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO audit (question_id, data) VALUES (?, ?)`, id, data); err != nil {
			return fmt.Errorf("append audit entry: %w", err)
		}
	}
	return nil
}

// AddAudit appends entries to the audit log of a question.
func (s *Store) AddAudit(ctx context.Context, id string, entries ...broker.AuditEntry) error {
	return s.write(ctx, "audit "+id, func(ctx context.Context, tx *wtx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM questions WHERE id = ?`, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("sqlite: audit %s: %w", id, broker.ErrNotFound)
		}
		if err != nil {
			return err
		}
		return insertAudit(ctx, tx, id, entries)
	})
}

// Audit returns the audit log of a question, oldest first.
func (s *Store) Audit(ctx context.Context, id string) ([]broker.AuditEntry, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT data FROM audit WHERE question_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, s.fail("audit "+id, err)
	}
	defer rows.Close()
	out := []broker.AuditEntry{}
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, s.fail("audit "+id, err)
		}
		var e broker.AuditEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("sqlite: audit %s: decode: %w", id, err)
		}
		out = append(out, e)
	}
	return out, s.fail("audit "+id, rows.Err())
}
