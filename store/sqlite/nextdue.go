package sqlite

import (
	"context"
	"database/sql"
	"time"
)

// Each query reads the first entry of the partial indexes that the due
// queries use, so it costs the same with no pending question as with a
// million.
const (
	sqlNextScheduled = `SELECT min(t) FROM (
		SELECT min(expires_at) AS t FROM questions WHERE status = 'pending'
		UNION ALL SELECT min(next_reminder_at) FROM questions WHERE status = 'pending' AND next_reminder_at IS NOT NULL
		UNION ALL SELECT min(lease_until) FROM questions WHERE status = 'pending' AND lease_until IS NOT NULL
		UNION ALL SELECT min(due_at) FROM escalations)`
	sqlNextDelivery = `SELECT min(next_at) FROM deliveries WHERE state = 'pending'`
	sqlNextTask     = `SELECT min(next_at) FROM platform_tasks WHERE state IN ('queued', 'retrying')`
)

// NextScheduled returns the earliest deadline, reminder, lease end or
// escalation step of a pending question; see broker.Schedule.
func (s *Store) NextScheduled(ctx context.Context) (time.Time, bool, error) {
	return s.nextDue(ctx, "next scheduled", sqlNextScheduled)
}

// NextDelivery returns when the earliest pending callback delivery falls
// due; see broker.Outbox.
func (s *Store) NextDelivery(ctx context.Context) (time.Time, bool, error) {
	return s.nextDue(ctx, "next delivery", sqlNextDelivery)
}

// NextPlatformWork returns when the earliest unfinished platform task
// falls due; see broker.PlatformOutbox.
func (s *Store) NextPlatformWork(ctx context.Context) (time.Time, bool, error) {
	return s.nextDue(ctx, "next platform work", sqlNextTask)
}

// nextDue runs a query of one nullable time in milliseconds on the read
// pool.
func (s *Store) nextDue(ctx context.Context, op, query string) (time.Time, bool, error) {
	if s.closed.Load() {
		return time.Time{}, false, s.fail(op, errStoreClosed)
	}
	var v sql.NullInt64
	if err := s.reader.QueryRowContext(ctx, query).Scan(&v); err != nil {
		return time.Time{}, false, s.fail(op, err)
	}
	if !v.Valid {
		return time.Time{}, false, nil
	}
	return fromMS(v.Int64), true, nil
}
