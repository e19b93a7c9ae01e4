package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.PushStore = (*Store)(nil)

// pushSchema holds the Web Push state of the web inbox: the one VAPID key
// pair (the CHECK keeps it one row) and the subscriptions, one row per
// device endpoint, found by person.
const pushSchema = `CREATE TABLE vapid_keys (
		id          INTEGER PRIMARY KEY CHECK (id = 1),
		public_key  TEXT NOT NULL,
		private_key TEXT NOT NULL
	);
	CREATE TABLE push_subscriptions (
		endpoint   TEXT PRIMARY KEY,
		person     TEXT NOT NULL,
		p256dh     TEXT NOT NULL,
		auth       TEXT NOT NULL,
		device     TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL
	);
	CREATE INDEX push_subscriptions_person ON push_subscriptions (person, created_at);`

// VAPIDKeys returns the stored key pair, storing candidate first when
// there is none: INSERT OR IGNORE on the one row, then a read in the same
// transaction, so that the first writer's pair is everyone's.
func (s *Store) VAPIDKeys(ctx context.Context, candidate broker.VAPIDKeys) (broker.VAPIDKeys, error) {
	if err := broker.CheckVAPIDKeys(candidate); err != nil {
		return broker.VAPIDKeys{}, fmt.Errorf("sqlite: vapid keys: %w", err)
	}
	var k broker.VAPIDKeys
	err := s.write(ctx, "vapid keys", func(ctx context.Context, tx *wtx) error {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO vapid_keys (id, public_key, private_key) VALUES (1, ?, ?)`,
			candidate.Public, candidate.Private); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT public_key, private_key FROM vapid_keys WHERE id = 1`).Scan(&k.Public, &k.Private)
	})
	return k, err
}

// SavePushSubscription stores sub under its endpoint, counting the
// person's other subscriptions in the same transaction.
func (s *Store) SavePushSubscription(ctx context.Context, sub broker.PushSubscription) error {
	if err := sub.Check(); err != nil {
		return fmt.Errorf("sqlite: save push subscription: %w", err)
	}
	return s.write(ctx, "save push subscription", func(ctx context.Context, tx *wtx) error {
		var others int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM push_subscriptions WHERE person = ? AND endpoint != ?`,
			sub.Person, sub.Endpoint).Scan(&others); err != nil {
			return err
		}
		if others >= broker.MaxPushSubscriptions {
			return fmt.Errorf("%w: %s has notifications on in %d devices already: remove one first", broker.ErrLimit, sub.Person, others)
		}
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO push_subscriptions (endpoint, person, p256dh, auth, device, created_at)
			VALUES (?, ?, ?, ?, ?, ?)`, sub.Endpoint, sub.Person, sub.P256dh, sub.Auth, sub.Device, ms(sub.CreatedAt))
		return err
	})
}

// PushSubscriptions returns the subscriptions of people, by person in
// the order given, then oldest first.
func (s *Store) PushSubscriptions(ctx context.Context, people []string) ([]broker.PushSubscription, error) {
	if s.closed.Load() {
		return nil, s.fail("push subscriptions", errStoreClosed)
	}
	var out []broker.PushSubscription
	for _, p := range pushPeople(people) {
		rows, err := s.reader.QueryContext(ctx, `SELECT endpoint, p256dh, auth, device, created_at FROM push_subscriptions
			WHERE person = ? ORDER BY created_at, endpoint`, p)
		if err != nil {
			return nil, s.fail("push subscriptions", err)
		}
		for rows.Next() {
			sub := broker.PushSubscription{Person: p}
			var created int64
			if err := rows.Scan(&sub.Endpoint, &sub.P256dh, &sub.Auth, &sub.Device, &created); err != nil {
				rows.Close()
				return nil, s.fail("push subscriptions", err)
			}
			sub.CreatedAt = time.UnixMilli(created).UTC()
			out = append(out, sub)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, s.fail("push subscriptions", err)
		}
	}
	return out, nil
}

// HasPushSubscription reports whether any of people has a subscription.
func (s *Store) HasPushSubscription(ctx context.Context, people []string) (bool, error) {
	people = pushPeople(people)
	if len(people) == 0 {
		return false, nil
	}
	if s.closed.Load() {
		return false, s.fail("has push subscription", errStoreClosed)
	}
	args := make([]any, len(people))
	for i, p := range people {
		args[i] = p
	}
	q := `SELECT 1 FROM push_subscriptions WHERE person IN (?` + strings.Repeat(", ?", len(people)-1) + `) LIMIT 1`
	var one int
	err := s.reader.QueryRowContext(ctx, q, args...).Scan(&one)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, s.fail("has push subscription", err)
	}
	return true, nil
}

// DeletePushSubscription removes person's subscription with endpoint.
func (s *Store) DeletePushSubscription(ctx context.Context, person, endpoint string) (bool, error) {
	var n int64
	err := s.write(ctx, "delete push subscription", func(ctx context.Context, tx *wtx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM push_subscriptions WHERE endpoint = ? AND person = ?`, endpoint, person)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n > 0, err
}

// pushPeople returns the non-empty strings of xs, each once, in order.
func pushPeople(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		if x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
