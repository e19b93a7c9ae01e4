package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Due returns up to limit ids of pending questions whose deadline is at or
// before now, earliest first.
func (s *Store) Due(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.ids(ctx, "due", s.stmts.due,
		ms(now), limitArg(limit))
}

// DueReminders returns up to limit ids of pending questions whose next
// reminder is at or before now, earliest first.
func (s *Store) DueReminders(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.ids(ctx, "due reminders", s.stmts.reminders,
		ms(now), limitArg(limit))
}

// LapsedLeases returns up to limit ids of pending questions whose lease
// ended at or before now, earliest first.
func (s *Store) LapsedLeases(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return s.ids(ctx, "lapsed leases", s.stmts.leases,
		ms(now), limitArg(limit))
}

// ClaimReminder marks reminder n (1-based) of a pending question as sent
// unless it or a later one already is, and reports whether this call made
// the mark. A closed question reports false.
func (s *Store) ClaimReminder(ctx context.Context, id string, n int) (bool, error) {
	claimed := false
	err := s.write(ctx, "claim reminder "+id, func(ctx context.Context, tx *wtx) error {
		q, err := s.loadTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if n < 1 || n > len(q.Reminders) {
			return fmt.Errorf("%w: reminder %d does not exist (the question has %d)", broker.ErrInvalid, n, len(q.Reminders))
		}
		if q.Status != broker.StatusPending || q.RemindersSent >= n {
			return nil
		}
		q.RemindersSent = n
		claimed = true
		return s.saveTx(ctx, tx, q)
	})
	return claimed && err == nil, err
}

// RenewLease moves the lease of a pending question to until.
func (s *Store) RenewLease(ctx context.Context, id string, until time.Time) error {
	_, err := s.modify(ctx, "renew lease "+id, id, func(q *broker.Question) error {
		q.LeaseUntil = utcMS(until)
		return nil
	})
	return err
}

// ids runs a prepared query that returns question ids on the read pool.
func (s *Store) ids(ctx context.Context, op string, stmt *sql.Stmt, args ...any) ([]string, error) {
	if s.closed.Load() {
		return nil, s.fail(op, errStoreClosed)
	}
	rows, err := stmt.QueryContext(ctx, args...)
	if err != nil {
		return nil, s.fail(op, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, s.fail(op, err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail(op, err)
	}
	return out, nil
}
