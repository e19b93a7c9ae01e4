package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Attachments = (*Store)(nil)

// PutAttachment stores f with pending question id under the next number
// of the question. The check of the question's status and of its total,
// the number and the insert are one transaction.
func (s *Store) PutAttachment(ctx context.Context, id string, f broker.File, maxTotal int64) (int, error) {
	f.Size = int64(len(f.Data))
	var n int
	err := s.write(ctx, "put attachment "+id, func(ctx context.Context, tx *wtx) error {
		q, err := s.loadTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if q.Status != broker.StatusPending {
			return &broker.ClosedError{Question: q}
		}
		var total int64
		err = tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(size), 0) FROM attachments WHERE question_id = ? AND data IS NOT NULL`, id).Scan(&total)
		if err != nil {
			return err
		}
		if total+f.Size > maxTotal {
			return fmt.Errorf("%w: the question keeps %d bytes of files, and %d more would pass %d", broker.ErrLimit, total, f.Size, maxTotal)
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(n), 0) + 1 FROM attachments WHERE question_id = ?`, id).Scan(&n); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO attachments (question_id, n, name, type, size, data) VALUES (?, ?, ?, ?, ?, ?)`,
			id, n, f.Name, f.Type, f.Size, f.Data)
		return err
	})
	if errors.Is(err, broker.ErrNotFound) {
		return 0, fmt.Errorf("sqlite: put attachment: question %s: %w", id, broker.ErrNotFound)
	}
	return n, err
}

// GetAttachment returns file n of question id.
func (s *Store) GetAttachment(ctx context.Context, id string, n int) (*broker.File, error) {
	if s.closed.Load() {
		return nil, s.fail("get attachment", errStoreClosed)
	}
	f := broker.File{N: n}
	err := s.reader.QueryRowContext(ctx, `SELECT name, type, size, data FROM attachments WHERE question_id = ? AND n = ? AND data IS NOT NULL`, id, n).
		Scan(&f.Name, &f.Type, &f.Size, &f.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: get attachment %s/%d: %w", id, n, broker.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail("get attachment", err)
	}
	return &f, nil
}

// ListAttachments lists the files of question id without their bytes.
func (s *Store) ListAttachments(ctx context.Context, id string) ([]broker.File, error) {
	if s.closed.Load() {
		return nil, s.fail("list attachments", errStoreClosed)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT n, name, type, size FROM attachments WHERE question_id = ? AND data IS NOT NULL ORDER BY n`, id)
	if err != nil {
		return nil, s.fail("list attachments", err)
	}
	defer rows.Close()
	var out []broker.File
	for rows.Next() {
		var f broker.File
		if err := rows.Scan(&f.N, &f.Name, &f.Type, &f.Size); err != nil {
			return nil, s.fail("list attachments", err)
		}
		out = append(out, f)
	}
	return out, s.fail("list attachments", rows.Err())
}

// DeleteAttachments drops the bytes of files ns of question id; their
// rows stay, so that their numbers are not given again.
func (s *Store) DeleteAttachments(ctx context.Context, id string, ns []int) error {
	if len(ns) == 0 {
		return nil
	}
	list, err := json.Marshal(ns)
	if err != nil {
		return fmt.Errorf("sqlite: delete attachments: %w", err)
	}
	return s.write(ctx, "delete attachments "+id, func(ctx context.Context, tx *wtx) error {
		_, err := tx.ExecContext(ctx, `UPDATE attachments SET data = NULL, size = 0 WHERE question_id = ? AND n IN (SELECT value FROM json_each(?))`, id, string(list))
		return err
	})
}
