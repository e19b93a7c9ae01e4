package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.ReplayGuard = (*Store)(nil)

// replaySchema is the table of the replay guard: a key and when it is
// forgotten. A key past its expiry counts as new, and Purge deletes it.
const replaySchema = `CREATE TABLE replay_keys (
		key        TEXT PRIMARY KEY,
		expires_at INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE INDEX replay_keys_expiry ON replay_keys (expires_at);`

// sqlFirstSeen inserts a key, or takes over an expired one; a key still
// remembered is left as it is, and the statement changes no row.
const sqlFirstSeen = `INSERT INTO replay_keys (key, expires_at) VALUES (?1, ?2)
	ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE replay_keys.expires_at <= ?3`

// FirstSeen records key until ttl from now and reports whether it was
// new: not stored, or stored with an expiry already past. The check and
// the write are one statement in the writer's transaction, so that of
// concurrent calls on any instance sharing the file one alone is first.
func (s *Store) FirstSeen(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	if err := broker.CheckReplayKey(key, ttl); err != nil {
		return false, fmt.Errorf("sqlite: first seen: %w", err)
	}
	var first bool
	err := s.write(ctx, "first seen", func(ctx context.Context, tx *wtx) error {
		now := time.Now()
		res, err := tx.ExecContext(ctx, sqlFirstSeen, key, ms(now.Add(ttl)), ms(now))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		first = n > 0
		return err
	})
	if err != nil {
		return false, err
	}
	return first, nil
}

// purgeReplayKeys deletes the replay keys expired at now, for Purge.
func (s *Store) purgeReplayKeys(ctx context.Context, now time.Time) error {
	return s.write(ctx, "purge replay keys", func(ctx context.Context, tx *wtx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM replay_keys WHERE expires_at <= ?`, ms(now))
		return err
	})
}
