package sqlite

import (
	"context"
	"fmt"
)

// EditAuditEntry rewrites entry seq of question id's audit trail by hand,
// as someone with the file could (brokertest.AuditEditor).
func (s *Store) EditAuditEntry(ctx context.Context, id string, seq int64, edit func(raw string) string) error {
	return s.write(ctx, "edit audit entry", func(ctx context.Context, tx *wtx) error {
		var raw string
		if err := tx.QueryRowContext(ctx, `SELECT data FROM audit_log WHERE question_id = ? AND seq = ?`, id, seq).Scan(&raw); err != nil {
			return fmt.Errorf("read entry %d of %s: %w", seq, id, err)
		}
		_, err := tx.ExecContext(ctx, `UPDATE audit_log SET data = ? WHERE question_id = ? AND seq = ?`, edit(raw), id, seq)
		return err
	})
}

// RemoveAuditEntry deletes entry seq of question id's audit trail by
// hand (brokertest.AuditEditor).
func (s *Store) RemoveAuditEntry(ctx context.Context, id string, seq int64) error {
	return s.write(ctx, "remove audit entry", func(ctx context.Context, tx *wtx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM audit_log WHERE question_id = ? AND seq = ?`, id, seq)
		return err
	})
}
