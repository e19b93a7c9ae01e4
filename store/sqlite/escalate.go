package sqlite

import (
	"context"
	"fmt"
	"time"
)

// indexEscalation records when the next escalation step of question id is
// due (none when at is zero), in the transaction of an Amend.
func indexEscalation(ctx context.Context, tx *wtx, id string, at time.Time) error {
	if at.IsZero() {
		if _, err := tx.ExecContext(ctx, `DELETE FROM escalations WHERE question_id = ?`, id); err != nil {
			return fmt.Errorf("unindex escalation: %w", err)
		}
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO escalations (question_id, due_at) VALUES (?, ?)
		ON CONFLICT (question_id) DO UPDATE SET due_at = excluded.due_at`, id, ms(at)); err != nil {
		return fmt.Errorf("index escalation: %w", err)
	}
	return nil
}

// DueEscalations returns up to limit ids of pending questions whose next
// escalation step is due at or before now, earliest first.
func (s *Store) DueEscalations(ctx context.Context, now time.Time, limit int) ([]string, error) {
	if limit <= 0 {
		return nil, nil
	}
	if s.closed.Load() {
		return nil, s.fail("due escalations", errStoreClosed)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT question_id FROM escalations WHERE due_at <= ? ORDER BY due_at, question_id LIMIT ?`, ms(now), limit)
	if err != nil {
		return nil, s.fail("due escalations", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, s.fail("due escalations", err)
		}
		out = append(out, id)
	}
	return out, s.fail("due escalations", rows.Err())
}
