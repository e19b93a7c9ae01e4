package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// platformOutboxSchema is schema step 5. A task's row goes with its
// question (the trigger), so that Purge needs no step of its own.
const platformOutboxSchema = `CREATE TABLE platform_tasks (
		question_id TEXT NOT NULL,
		kind        TEXT NOT NULL,
		channel     TEXT NOT NULL,
		chat        TEXT NOT NULL DEFAULT '',
		state       TEXT NOT NULL,
		attempts    INTEGER NOT NULL DEFAULT 0,
		next_at     INTEGER NOT NULL,
		deadline    INTEGER NOT NULL,
		last_error  TEXT NOT NULL DEFAULT '',
		message_id  TEXT NOT NULL DEFAULT '',
		gen         INTEGER NOT NULL DEFAULT 1,
		claim       INTEGER NOT NULL DEFAULT 0,
		created_at  INTEGER NOT NULL,
		updated_at  INTEGER NOT NULL,
		PRIMARY KEY (question_id, kind, channel, chat)
	) WITHOUT ROWID;
	CREATE INDEX platform_tasks_due ON platform_tasks (next_at) WHERE state IN ('queued', 'retrying');
	CREATE TRIGGER platform_tasks_purge AFTER DELETE ON questions BEGIN
		DELETE FROM platform_tasks WHERE question_id = OLD.id;
	END;
	CREATE TABLE pacing (
		key     TEXT PRIMARY KEY,
		next_at INTEGER NOT NULL
	) WITHOUT ROWID;`

const taskColumns = `question_id, kind, channel, chat, state, attempts, next_at, deadline, last_error, message_id, gen, claim, created_at, updated_at, error_class`

// errorClassSchema is schema step 16: the class of a task's last failure
// in a column of its own (broker.PlatformTask.ErrorClass). Rows written
// before keep the class at the head of last_error, and are read with
// broker.DecodeLastError (scanTasks).
const errorClassSchema = `ALTER TABLE platform_tasks ADD COLUMN error_class TEXT NOT NULL DEFAULT '';`

// sqlEnqueueTask adds a task or renews it (see broker.PlatformOutbox): a
// finished task starts over, an unfinished one that is not claimed now
// becomes due at once, a claimed one keeps its claim. ?1 id, ?2 kind,
// ?3 channel, ?4 chat, ?5 now, ?6 deadline.
const sqlEnqueueTask = `INSERT INTO platform_tasks (question_id, kind, channel, chat, state, next_at, deadline, created_at, updated_at)
	VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?6, ?5, ?5)
	ON CONFLICT DO UPDATE SET
		gen = gen + 1,
		deadline = excluded.deadline,
		updated_at = excluded.updated_at,
		next_at = CASE WHEN state NOT IN ('queued', 'retrying') THEN ?5 WHEN claim > ?5 THEN next_at ELSE min(next_at, ?5) END,
		attempts = CASE WHEN state IN ('queued', 'retrying') THEN attempts ELSE 0 END,
		last_error = CASE WHEN state IN ('queued', 'retrying') THEN last_error ELSE '' END,
		error_class = CASE WHEN state IN ('queued', 'retrying') THEN error_class ELSE '' END,
		created_at = CASE WHEN state IN ('queued', 'retrying') THEN created_at ELSE ?5 END,
		claim = CASE WHEN state IN ('queued', 'retrying') THEN claim ELSE 0 END,
		state = CASE WHEN state IN ('queued', 'retrying') THEN state ELSE 'queued' END`

// enqueueTasksTx writes the tasks of kind for targets in tx.
func (s *Store) enqueueTasksTx(ctx context.Context, tx *wtx, id string, kind broker.TaskKind, targets []broker.Target, now, deadline time.Time) error {
	if len(targets) == 0 {
		return nil
	}
	st := tx.StmtContext(ctx, s.stmts.enqueueTask)
	for _, t := range targets {
		if _, err := st.ExecContext(ctx, id, string(kind), t.Channel, t.Chat, ms(now), ms(deadline)); err != nil {
			return fmt.Errorf("enqueue %s to %s: %w", kind, t, err)
		}
	}
	return nil
}

// splitTargets returns the copies of new question q at its in-process
// targets, as the JSON its row keeps them in (schema step 11), and the
// targets left, which the outbox posts to.
func splitTargets(q *broker.Question, inProcess []broker.Target) (copies string, remote []broker.Target, err error) {
	if len(inProcess) == 0 {
		return "[]", q.Targets, nil
	}
	pairs := make([][2]string, 0, len(inProcess))
	for _, t := range q.Targets {
		if slices.Contains(inProcess, t) {
			pairs = append(pairs, [2]string{t.Channel, t.Chat})
		} else {
			remote = append(remote, t)
		}
	}
	data, err := json.Marshal(pairs)
	if err != nil {
		return "", nil, fmt.Errorf("encode the in-process copies: %w", err)
	}
	return string(data), remote, nil
}

// postTasksTx writes the post tasks of new question q (Create) to
// targets, the ones that are not in-process.
func (s *Store) postTasksTx(ctx context.Context, tx *wtx, q *broker.Question, targets []broker.Target) error {
	deadline := q.ExpiresAt
	if deadline.IsZero() {
		deadline = q.CreatedAt.Add(broker.MaxTimeout)
	}
	return s.enqueueTasksTx(ctx, tx, q.ID, broker.TaskPost, targets, q.CreatedAt, deadline)
}

// editTasksTx writes the edit tasks of a question resolved at at
// (Resolve): one for every target it has a post task to (its route's
// but the in-process ones, and any an escalation added), due at once,
// even for a resolution dated later (a timeout recorded at its deadline).
func (s *Store) editTasksTx(ctx context.Context, tx *wtx, q *broker.Question, at time.Time) error {
	due := min(ms(at), ms(time.Now()))
	rows, err := tx.StmtContext(ctx, s.stmts.postTargets).QueryContext(ctx, q.ID)
	if err != nil {
		return fmt.Errorf("list posted targets: %w", err)
	}
	var targets []broker.Target
	for rows.Next() {
		var t broker.Target
		if err := rows.Scan(&t.Channel, &t.Chat); err != nil {
			rows.Close()
			return fmt.Errorf("list posted targets: %w", err)
		}
		targets = append(targets, t)
	}
	if err := rows.Close(); err != nil {
		return fmt.Errorf("list posted targets: %w", err)
	}
	return s.enqueueTasksTx(ctx, tx, q.ID, broker.TaskEdit, targets, fromMS(due), at.Add(broker.EditWindow))
}

// EnqueuePlatformWork adds or renews tasks; see broker.PlatformOutbox.
func (s *Store) EnqueuePlatformWork(ctx context.Context, id string, kind broker.TaskKind, targets []broker.Target, now, deadline time.Time) error {
	if !kind.Valid() {
		return fmt.Errorf("sqlite: enqueue platform work %s: %w: unknown kind %q", id, broker.ErrInvalid, kind)
	}
	for _, t := range targets {
		if t.Channel == "" {
			return fmt.Errorf("sqlite: enqueue platform work %s: %w: a target has no channel", id, broker.ErrInvalid)
		}
	}
	return s.write(ctx, "enqueue platform work "+id, func(ctx context.Context, tx *wtx) error {
		var exists int
		if err := tx.StmtContext(ctx, s.stmts.exists).QueryRowContext(ctx, id).Scan(&exists); err != nil {
			return err
		}
		if exists == 0 {
			return broker.ErrNotFound
		}
		return s.enqueueTasksTx(ctx, tx, id, kind, targets, now, deadline)
	})
}

// ClaimPlatformWork holds up to limit due tasks; see broker.PlatformOutbox.
// As with deliveries, a reader looks first whether anything is due.
func (s *Store) ClaimPlatformWork(ctx context.Context, questionID string, now time.Time, limit int, hold time.Duration) ([]broker.PlatformTask, error) {
	if hold <= 0 {
		return nil, fmt.Errorf("sqlite: claim platform work: %w: hold must be positive, got %v", broker.ErrInvalid, hold)
	}
	if limit <= 0 {
		return nil, nil
	}
	if s.closed.Load() {
		return nil, s.fail("claim platform work", errStoreClosed)
	}
	anyDue, claim, args := s.stmts.anyTaskDue, s.stmts.claimTasks, []any{ms(now)}
	if questionID != "" {
		anyDue, claim, args = s.stmts.anyTaskDueOf, s.stmts.claimTasksOf, append(args, questionID)
	}
	var due int
	if err := anyDue.QueryRowContext(ctx, args...).Scan(&due); err != nil {
		return nil, s.fail("claim platform work", err)
	}
	if due == 0 {
		return nil, nil
	}
	var out []broker.PlatformTask
	err := s.write(ctx, "claim platform work", func(ctx context.Context, tx *wtx) error {
		rows, err := tx.StmtContext(ctx, claim).QueryContext(ctx, append(args, ms(now.Add(hold)), limit)...)
		if err != nil {
			return err
		}
		out, err = scanTasks(rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// UpdatePlatformWork records an attempt's outcome; see broker.PlatformOutbox.
func (s *Store) UpdatePlatformWork(ctx context.Context, t broker.PlatformTask) error {
	switch t.State {
	case broker.TaskQueued, broker.TaskRetrying, broker.TaskDone, broker.TaskFailed, broker.TaskDropped:
	default:
		return fmt.Errorf("sqlite: update platform work %s: %w: unknown state %q", t.QuestionID, broker.ErrInvalid, t.State)
	}
	if t.Claim.IsZero() {
		return fmt.Errorf("sqlite: update platform work %s: %w: the task carries no claim", t.QuestionID, broker.ErrInvalid)
	}
	if t.ErrorClass != "" && !t.ErrorClass.Valid() {
		return fmt.Errorf("sqlite: update platform work %s: %w: unknown error class %q", t.QuestionID, broker.ErrInvalid, t.ErrorClass)
	}
	lastErr := clip(t.LastError)
	return s.write(ctx, "update platform work "+t.QuestionID, func(ctx context.Context, tx *wtx) error {
		var gen, claim int64
		var state string
		err := tx.StmtContext(ctx, s.stmts.taskState).QueryRowContext(ctx, t.QuestionID, string(t.Kind), t.Target.Channel, t.Target.Chat).Scan(&gen, &claim, &state)
		if errors.Is(err, sql.ErrNoRows) {
			return broker.ErrNotFound
		}
		if err != nil {
			return err
		}
		if claim != ms(t.Claim) || broker.TaskFinished(state) {
			return fmt.Errorf("%w: task %s %s of %s was claimed again or finished since its claim", broker.ErrConflict, t.Kind, t.Target, t.QuestionID)
		}
		newState, next := t.State, t.NextAt
		if gen != t.Gen && broker.TaskFinished(newState) {
			newState, next = broker.TaskQueued, t.UpdatedAt
		}
		_, err = tx.StmtContext(ctx, s.stmts.updateTask).ExecContext(ctx, newState, t.Attempts, ms(next), lastErr, string(t.ErrorClass), t.MessageID, t.MessageID, ms(t.UpdatedAt),
			t.QuestionID, string(t.Kind), t.Target.Channel, t.Target.Chat)
		return err
	})
}

// PlatformWork lists the tasks of a question.
func (s *Store) PlatformWork(ctx context.Context, id string) ([]broker.PlatformTask, error) {
	if s.closed.Load() {
		return nil, s.fail("platform work "+id, errStoreClosed)
	}
	rows, err := s.stmts.platformWork.QueryContext(ctx, id)
	if err != nil {
		return nil, s.fail("platform work "+id, err)
	}
	out, err := scanTasks(rows)
	if err != nil {
		return nil, s.fail("platform work "+id, err)
	}
	return out, nil
}

// PlatformBacklog counts the unfinished tasks per channel.
func (s *Store) PlatformBacklog(ctx context.Context) ([]broker.Backlog, error) {
	if s.closed.Load() {
		return nil, s.fail("platform backlog", errStoreClosed)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT channel, count(*), min(created_at) FROM platform_tasks
		WHERE state IN ('queued', 'retrying') GROUP BY channel ORDER BY channel`)
	if err != nil {
		return nil, s.fail("platform backlog", err)
	}
	defer rows.Close()
	var out []broker.Backlog
	for rows.Next() {
		var b broker.Backlog
		var oldest int64
		if err := rows.Scan(&b.Channel, &b.Depth, &oldest); err != nil {
			return nil, s.fail("platform backlog", err)
		}
		b.Oldest = fromMS(oldest)
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("platform backlog", err)
	}
	return out, nil
}

// Pace reserves the next slot of key; see broker.PlatformOutbox.
func (s *Store) Pace(ctx context.Context, key string, interval time.Duration, now time.Time, maxWait time.Duration) (time.Time, bool, error) {
	if key == "" || interval <= 0 {
		return time.Time{}, false, fmt.Errorf("sqlite: pace: %w: a key and a positive interval are needed", broker.ErrInvalid)
	}
	var at time.Time
	var ok bool
	err := s.write(ctx, "pace "+key, func(ctx context.Context, tx *wtx) error {
		var next int64
		err := tx.QueryRowContext(ctx, `SELECT next_at FROM pacing WHERE key = ?`, key).Scan(&next)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		slot := max(next, ms(now))
		at = fromMS(slot)
		if slot-ms(now) > maxWait.Milliseconds() {
			return nil
		}
		ok = true
		_, err = tx.ExecContext(ctx, `INSERT INTO pacing (key, next_at) VALUES (?1, ?2)
			ON CONFLICT DO UPDATE SET next_at = ?2`, key, slot+max(interval.Milliseconds(), 1))
		return err
	})
	return at, ok, err
}

// HoldPace moves the next slot of key to until at the earliest.
func (s *Store) HoldPace(ctx context.Context, key string, until time.Time) error {
	if key == "" {
		return fmt.Errorf("sqlite: hold pace: %w: a key is needed", broker.ErrInvalid)
	}
	return s.write(ctx, "hold pace "+key, func(ctx context.Context, tx *wtx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO pacing (key, next_at) VALUES (?1, ?2)
			ON CONFLICT DO UPDATE SET next_at = max(next_at, ?2)`, key, ms(until))
		return err
	})
}

// scanTasks reads and closes rows of taskColumns.
func scanTasks(rows *sql.Rows) ([]broker.PlatformTask, error) {
	defer rows.Close()
	var out []broker.PlatformTask
	for rows.Next() {
		var t broker.PlatformTask
		var kind, class string
		var next, deadline, claim, created, updated int64
		if err := rows.Scan(&t.QuestionID, &kind, &t.Target.Channel, &t.Target.Chat, &t.State, &t.Attempts, &next, &deadline,
			&t.LastError, &t.MessageID, &t.Gen, &claim, &created, &updated, &class); err != nil {
			return nil, err
		}
		t.Kind, t.ErrorClass = broker.TaskKind(kind), broker.FailureClass(class)
		if class == "" && t.LastError != "" {
			// Written before schema step 16, or a reason without a class.
			t.ErrorClass, t.LastError = broker.DecodeLastError(t.LastError)
		}
		t.NextAt, t.Deadline, t.CreatedAt, t.UpdatedAt = fromMS(next), fromMS(deadline), fromMS(created), fromMS(updated)
		if claim != 0 {
			t.Claim = fromMS(claim)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// clip bounds a task's last error, on a character boundary.
func clip(s string) string {
	if len(s) <= broker.TaskMaxError {
		return s
	}
	return strings.ToValidUTF8(s[:broker.TaskMaxError], "")
}
