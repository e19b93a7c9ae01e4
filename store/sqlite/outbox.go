package sqlite

import (
	"cmp"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// Events returns up to limit events (resolutions and extensions) after
// sequence number after, oldest first, of agent when it is not empty.
func (s *Store) Events(ctx context.Context, agent string, after int64, limit int) ([]broker.Event, error) {
	if s.closed.Load() {
		return nil, s.fail("events", errStoreClosed)
	}
	query := `SELECT seq, question_id, agent, session_id, status, at, type, extension FROM events WHERE seq > ?`
	args := []any{after}
	if agent != "" {
		query += ` AND agent = ?`
		args = append(args, agent)
	}
	query += ` ORDER BY seq LIMIT ?`
	args = append(args, limitArg(limit))
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.fail("events", err)
	}
	defer rows.Close()
	var out []broker.Event
	for rows.Next() {
		var e broker.Event
		var status string
		var at int64
		var ext sql.NullString
		if err := rows.Scan(&e.Seq, &e.QuestionID, &e.Agent, &e.SessionID, &status, &at, &e.Type, &ext); err != nil {
			return nil, s.fail("events", err)
		}
		e.Status, e.At = broker.Status(status), fromMS(at)
		if err := readExtension(&e, ext); err != nil {
			return nil, s.fail("events", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("events", err)
	}
	return out, nil
}

const deliveryColumns = `id, question_id, agent, url, state, attempts, next_at, last_error, created_at, updated_at`

// ClaimDeliveries returns up to limit pending deliveries due at now and
// moves their next attempt to now+hold, in one prepared statement. A reader looks
// first whether anything is due, so that the deliverers' polls take the
// file's write lock only when there is something to claim: a poll that
// finds nothing must not hold up the writes of attempts' outcomes (of
// this process or of another one on the same file).
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, limit int, hold time.Duration) ([]broker.Delivery, error) {
	if hold <= 0 {
		return nil, fmt.Errorf("sqlite: claim deliveries: %w: hold must be positive, got %v", broker.ErrInvalid, hold)
	}
	if s.closed.Load() {
		return nil, s.fail("claim deliveries", errStoreClosed)
	}
	var due int
	err := s.stmts.anyDue.QueryRowContext(ctx, ms(now)).Scan(&due)
	if err != nil {
		return nil, s.fail("claim deliveries", err)
	}
	if due == 0 {
		return nil, nil
	}
	var out []broker.Delivery
	err = s.write(ctx, "claim deliveries", func(ctx context.Context, tx *wtx) error {
		rows, err := tx.StmtContext(ctx, s.stmts.claim).QueryContext(ctx, ms(now.Add(hold)), ms(now), limitArg(limit))
		if err != nil {
			return err
		}
		out, err = scanDeliveries(rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Claim = out[i].NextAt
	}
	slices.SortFunc(out, func(a, b broker.Delivery) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// UpdateDelivery records the outcome of an attempt: state, attempts, next
// attempt, last error and update time; with d.Claim, only while the
// delivery is pending with its next attempt still at the claim's end.
func (s *Store) UpdateDelivery(ctx context.Context, d broker.Delivery) error {
	switch d.State {
	case broker.DeliveryPending, broker.DeliveryDelivered, broker.DeliveryFailed:
	default:
		return fmt.Errorf("sqlite: update delivery %s: %w: unknown state %q", d.ID, broker.ErrInvalid, d.State)
	}
	return s.write(ctx, "update delivery "+d.ID, func(ctx context.Context, tx *wtx) error {
		query := `UPDATE deliveries SET state = ?, attempts = ?, next_at = ?, last_error = ?, updated_at = ? WHERE id = ?`
		args := []any{d.State, d.Attempts, ms(d.NextAt), d.LastError, ms(d.UpdatedAt), d.ID}
		if !d.Claim.IsZero() {
			query += ` AND state = 'pending' AND next_at = ?`
			args = append(args, ms(d.Claim))
		}
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n > 0 {
			return err
		}
		var exists int
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM deliveries WHERE id = ?)`, d.ID).Scan(&exists); err != nil {
			return err
		}
		if exists == 1 {
			return fmt.Errorf("%w: delivery %s was claimed again or finished since its claim", broker.ErrConflict, d.ID)
		}
		return broker.ErrNotFound
	})
}

// Deliveries lists the callback deliveries of a question, oldest first.
func (s *Store) Deliveries(ctx context.Context, questionID string) ([]broker.Delivery, error) {
	if s.closed.Load() {
		return nil, s.fail("deliveries "+questionID, errStoreClosed)
	}
	rows, err := s.reader.QueryContext(ctx,
		`SELECT `+deliveryColumns+` FROM deliveries WHERE question_id = ? ORDER BY created_at, id`, questionID)
	if err != nil {
		return nil, s.fail("deliveries "+questionID, err)
	}
	out, err := scanDeliveries(rows)
	if err != nil {
		return nil, s.fail("deliveries "+questionID, err)
	}
	return out, nil
}

// scanDeliveries reads and closes rows of deliveryColumns.
func scanDeliveries(rows *sql.Rows) ([]broker.Delivery, error) {
	defer rows.Close()
	var out []broker.Delivery
	for rows.Next() {
		var d broker.Delivery
		var next, created, updated int64
		if err := rows.Scan(&d.ID, &d.QuestionID, &d.Agent, &d.URL, &d.State, &d.Attempts, &next, &d.LastError, &created, &updated); err != nil {
			return nil, err
		}
		d.NextAt, d.CreatedAt, d.UpdatedAt = fromMS(next), fromMS(created), fromMS(updated)
		out = append(out, d)
	}
	return out, rows.Err()
}

// purgeChunk is how many questions (or events) one purge transaction
// removes, so that a large purge never holds up other writes for long.
const purgeChunk = 500

// sqlPurgeable selects a chunk of the questions Purge removes: resolved
// before the cut-off, with no callback delivery still in progress. A
// question resolved before the cut-off was also created before it, which
// lets the scan use the creation index.
const sqlPurgeable = `SELECT id FROM questions
	WHERE created_at < ?1 AND status != 'pending' AND resolved_at < ?1
	AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.question_id = questions.id AND d.state = 'pending')
	LIMIT ?2`

// Purge removes questions resolved before before, with their messages,
// events and finished deliveries, the pending counts at zero and the
// replay keys expired, and returns how many questions went. It
// works in chunks of its own transactions. A question whose callback is
// still pending is kept until the delivery ends; the event log is cut by
// time, so its event goes with the others of its time.
func (s *Store) Purge(ctx context.Context, before time.Time) (int, error) {
	cut := ms(before)
	total := 0
	for {
		var n int64
		var purged []string
		err := s.write(ctx, "purge", func(ctx context.Context, tx *wtx) error {
			ids, err := queryIDs(ctx, tx, sqlPurgeable, cut, purgeChunk)
			if err != nil || len(ids) == 0 {
				return err
			}
			list, err := json.Marshal(ids)
			if err != nil {
				return err
			}
			// The questions' copies go with them (schema step 10's trigger).
			if _, err := tx.ExecContext(ctx,
				`DELETE FROM deliveries WHERE state != 'pending' AND question_id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM questions WHERE id IN (SELECT value FROM json_each(?))`, string(list))
			if err != nil {
				return err
			}
			purged = ids
			n, err = res.RowsAffected()
			return err
		})
		s.decoded.forget(purged)
		if err != nil {
			return total, err
		}
		total += int(n)
		if n < purgeChunk {
			break
		}
	}
	// The pending counts of agents with none pending (schema step 9).
	err := s.write(ctx, "purge counts", func(ctx context.Context, tx *wtx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM pending_counts WHERE n <= 0`)
		return err
	})
	if err != nil {
		return total, err
	}
	// The replay keys expire by the clock, not by the retention.
	if err := s.purgeReplayKeys(ctx, time.Now()); err != nil {
		return total, err
	}
	for {
		var n int64
		err := s.write(ctx, "purge events", func(ctx context.Context, tx *wtx) error {
			res, err := tx.ExecContext(ctx,
				`DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE at < ? ORDER BY seq LIMIT ?)`, cut, purgeChunk)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return total, err
		}
		if n < purgeChunk {
			return total, nil
		}
	}
}

// queryIDs runs a query returning ids inside a write transaction.
func queryIDs(ctx context.Context, tx *wtx, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// newDeliveryID returns a random delivery id.
func newDeliveryID() string { return "d_" + strings.ToLower(rand.Text()) }
