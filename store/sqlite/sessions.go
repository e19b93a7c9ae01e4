package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Sessions = (*Store)(nil)

// CreateSession stores a web inbox session under its digest until
// expires. In the same transaction it removes sessions that have expired,
// so the table holds live sessions only (there are few: one per signed-in
// browser).
func (s *Store) CreateSession(ctx context.Context, digest string, expires time.Time) error {
	if digest == "" {
		return fmt.Errorf("sqlite: create session: %w: empty digest", broker.ErrInvalid)
	}
	return s.write(ctx, "create session", func(ctx context.Context, tx *wtx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_sessions WHERE expires_at <= ?`, ms(time.Now())); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO web_sessions (digest, expires_at) VALUES (?, ?)`, digest, ms(expires))
		return err
	})
}

// CheckSession reports whether a session is stored under digest and has
// not expired at now.
func (s *Store) CheckSession(ctx context.Context, digest string, now time.Time) (bool, error) {
	if s.closed.Load() {
		return false, s.fail("check session", errStoreClosed)
	}
	var expires int64
	err := s.reader.QueryRowContext(ctx, `SELECT expires_at FROM web_sessions WHERE digest = ?`, digest).Scan(&expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, s.fail("check session", err)
	}
	return ms(now) < expires, nil
}

// DeleteSession removes the session stored under digest, if any.
func (s *Store) DeleteSession(ctx context.Context, digest string) error {
	return s.write(ctx, "delete session", func(ctx context.Context, tx *wtx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM web_sessions WHERE digest = ?`, digest)
		return err
	})
}
