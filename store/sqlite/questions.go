package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
	sqlite3 "modernc.org/sqlite/lib"
)

// Create stores q as pending, with its copies at inProcess; see
// broker.Questions.
func (s *Store) Create(ctx context.Context, q *broker.Question, inProcess []broker.Target) (*broker.Question, bool, error) {
	return s.CreateCapped(ctx, q, inProcess, 0)
}

// CreateCapped stores q as pending unless its agent has max pending
// questions already; see broker.Store. The count is read in the write
// transaction, from a table that triggers keep (schema step 2), so that
// the check and the insert are one step.
func (s *Store) CreateCapped(ctx context.Context, q *broker.Question, inProcess []broker.Target, max int) (*broker.Question, bool, error) {
	if q == nil || q.ID == "" {
		return nil, false, fmt.Errorf("sqlite: create: %w: the question has no id", broker.ErrInvalid)
	}
	if q.Status != "" && q.Status != broker.StatusPending {
		return nil, false, fmt.Errorf("sqlite: create %s: %w: status is %q, a new question must be pending", q.ID, broker.ErrInvalid, q.Status)
	}
	if err := broker.CheckInProcess(q, inProcess); err != nil {
		return nil, false, fmt.Errorf("sqlite: create %s: %w", q.ID, err)
	}
	nq := normalized(q)
	nq.Status = broker.StatusPending
	data, err := json.Marshal(nq)
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: create %s: encode: %w", q.ID, err)
	}
	// The normalized question is what a decode of data would give,
	// without the decode (TestCreateReturnsWhatItStored), unless
	// json.Marshal mended text. It shares q's memory, which is the
	// caller's: what the store keeps is a copy (below).
	if broker.MendedJSON(data) {
		if nq, err = decode(data); err != nil {
			return nil, false, fmt.Errorf("sqlite: create %s: %w", q.ID, err)
		}
	}
	copies, remote, err := splitTargets(nq, inProcess)
	if err != nil {
		return nil, false, fmt.Errorf("sqlite: create %s: %w", q.ID, err)
	}
	var existing *broker.Question
	err = s.write(ctx, "create "+q.ID, func(ctx context.Context, tx *wtx) error {
		if max > 0 {
			var n int
			err := tx.StmtContext(ctx, s.stmts.pendingCount).QueryRowContext(ctx, nq.Agent).Scan(&n)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			if n >= max {
				// A retried ask gets its question even at the cap.
				if existing, err = s.byKeyTx(ctx, tx, nq); existing != nil || err != nil {
					return err
				}
				return &broker.LimitError{What: "pending questions", Limit: max}
			}
		}
		_, err := tx.StmtContext(ctx, s.stmts.insert).ExecContext(ctx,
			nq.ID, nq.Agent, nq.SessionID, nq.ToolCallID, string(nq.Status), ms(nq.ExpiresAt),
			nullMS(nq.NextReminder()), nullMS(nq.LeaseUntil), ms(nq.CreatedAt), data, copies)
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY) {
			return fmt.Errorf("%w: %s", broker.ErrIDTaken, nq.ID)
		}
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
			// The insert changed nothing: the statement is undone and the
			// transaction goes on.
			found, ferr := s.byKeyTx(ctx, tx, nq)
			if ferr != nil {
				return ferr
			}
			if found == nil {
				return fmt.Errorf("insert refused by a unique index, but no question holds its idempotency key: %w", err)
			}
			existing = found
			return nil
		}
		if err != nil {
			return err
		}
		// The ask and its in-process copies open the question's audit
		// trail; a trail kept from a purged question of the same id
		// makes the id taken.
		if err := s.appendAuditTx(ctx, tx, nq.ID, nq.Agent, 0, "", broker.CreatedAudit(nq, inProcess)); err != nil {
			return err
		}
		return s.postTasksTx(ctx, tx, nq, remote)
	})
	if err != nil {
		return nil, false, err
	}
	if existing != nil {
		return existing, false, nil
	}
	// nq is data as a question: the reads of the new question that
	// follow (the agent's wait, the answer) copy it instead of decoding.
	s.decoded.put(nq.ID, data, nq.Clone())
	return nq, true, nil
}

// byKeyTx returns the question stored under q's idempotency key (agent,
// session, tool call id), or nil when there is none. Create runs it only
// when the key is known to be taken or the cap would refuse q, so that the
// common Create (a new key) reads nothing before its insert: the unique
// index questions_idempotency checks the key in the insert itself.
func (s *Store) byKeyTx(ctx context.Context, tx *wtx, q *broker.Question) (*broker.Question, error) {
	if q.ToolCallID == "" {
		return nil, nil
	}
	var raw []byte
	err := tx.StmtContext(ctx, s.stmts.byKey).QueryRowContext(ctx, q.Agent, q.SessionID, q.ToolCallID).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decode(raw)
}

// Get returns the question with id, or broker.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*broker.Question, error) {
	if s.closed.Load() {
		return nil, s.fail("get "+id, errStoreClosed)
	}
	if err := ctx.Err(); err != nil {
		return nil, s.fail("get "+id, err)
	}
	// A read by primary key takes microseconds, so it runs without the
	// caller's cancellation: with it, database/sql starts a goroutine per
	// query to watch the context, and the driver installs a progress
	// handler and starts another, on the hottest read of the bridge.
	var raw []byte
	err := s.stmts.getRead.QueryRowContext(context.WithoutCancel(ctx), id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: get %s: %w", id, broker.ErrNotFound)
	}
	if err != nil {
		return nil, s.fail("get "+id, err)
	}
	q, err := s.decoded.decode(id, raw)
	if err != nil {
		return nil, fmt.Errorf("sqlite: get %s: %w", id, err)
	}
	return q, nil
}

// CountPending sums the per-agent counts that triggers keep in
// pending_counts (schema.go), so it reads one row per agent with pending
// questions, never the questions.
func (s *Store) CountPending(ctx context.Context) (int, error) {
	if s.closed.Load() {
		return 0, s.fail("count pending", errStoreClosed)
	}
	var n int
	if err := s.reader.QueryRowContext(ctx, `SELECT COALESCE(SUM(n), 0) FROM pending_counts`).Scan(&n); err != nil {
		return 0, s.fail("count pending", err)
	}
	return n, nil
}

// Resolve sets the terminal state r on a pending question, appends the
// event and, with a callback URL, the delivery, all in one transaction;
// then it publishes the id on the resolution feed.
func (s *Store) Resolve(ctx context.Context, id string, r broker.Resolution) (*broker.Question, error) {
	if !r.Status.Terminal() {
		return nil, fmt.Errorf("sqlite: resolve %s: %w: status %q is not terminal", id, broker.ErrInvalid, r.Status)
	}
	at := utcMS(r.ResolvedAt)
	if at.IsZero() {
		return nil, fmt.Errorf("sqlite: resolve %s: %w: resolution has no time", id, broker.ErrInvalid)
	}
	var out *broker.Question
	err := s.write(ctx, "resolve "+id, func(ctx context.Context, tx *wtx) error {
		// The question as this process last wrote or read it, when the
		// cache keeps it (decoded.go): the compare-and-set then also
		// requires the row's text to be that one, which spares reading
		// the row. Whatever this copy says that would refuse the
		// resolution, and a compare-and-set that changes nothing, is
		// decided again on the row read.
		q, kept := s.decoded.kept(id)
		for {
			if q == nil {
				var err error
				if q, err = s.loadTx(ctx, tx, id); err != nil {
					return err
				}
				kept = nil
			}
			if err := refuseResolution(q, r); err != nil {
				if kept != nil {
					q = nil // decided on the row, not on the kept copy
					continue
				}
				return err
			}
			q.Status, q.Answers, q.Fallback, q.Reason = r.Status, r.Answers, r.Fallback, r.Reason
			q.NotReady, q.AnsweredBy, q.ResolvedAt = r.NotReady, r.AnsweredBy, at
			data, err := json.Marshal(q)
			if err != nil {
				return fmt.Errorf("encode: %w", err)
			}
			var res sql.Result
			if kept != nil {
				res, err = tx.StmtContext(ctx, s.stmts.resolveIf).ExecContext(ctx, string(q.Status), ms(at), data, id, kept)
			} else {
				res, err = tx.StmtContext(ctx, s.stmts.resolve).ExecContext(ctx, string(q.Status), ms(at), data, id)
			}
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err == nil && n == 0 && kept != nil {
				q = nil // the row is not as kept: read it
				continue
			}
			if err != nil || n != 1 {
				return fmt.Errorf("compare-and-set changed %d rows (%v)", n, err)
			}
			break
		}
		if _, err := tx.StmtContext(ctx, s.stmts.event).ExecContext(ctx, id, q.Agent, q.SessionID, string(q.Status), ms(at)); err != nil {
			return fmt.Errorf("append event: %w", err)
		}
		if q.CallbackURL != "" {
			if _, err := tx.StmtContext(ctx, s.stmts.delivery).ExecContext(ctx, newDeliveryID(), id, q.Agent, q.CallbackURL, ms(at), ms(at), ms(at)); err != nil {
				return fmt.Errorf("enqueue delivery: %w", err)
			}
		}
		if err := s.editTasksTx(ctx, tx, q, at); err != nil {
			return err
		}
		// Every resolution, whichever path it took, ends the audit
		// trail in the same step.
		if err := s.addAuditTx(ctx, tx, id, []broker.AuditEntry{broker.ResolvedAudit(q)}); err != nil {
			return err
		}
		out = q
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The text kept for the question is no longer the row's: dropping it
	// leaves the cache's room to pending questions, whose resolutions use
	// it (an entry pushed out for a new one costs its resolution a read
	// and a decode).
	s.decoded.forget([]string{id})
	s.feed.publish(broker.Resolved{ID: id, Agent: out.Agent, Callback: out.CallbackURL != ""})
	return out, nil
}

// refuseResolution returns why resolution r may not end q, or nil: q is
// closed, or r was built on other progress or another policy revision.
func refuseResolution(q *broker.Question, r broker.Resolution) error {
	switch {
	case q.Status != broker.StatusPending:
		return &broker.ClosedError{Question: q}
	case r.IfProgress != nil && q.ProgressCount() != *r.IfProgress:
		return fmt.Errorf("%w: %d prompts are answered now, the resolution was built on %d", broker.ErrConflict, q.ProgressCount(), *r.IfProgress)
	case r.IfRev != nil && q.State.Rev != *r.IfRev:
		return fmt.Errorf("%w: the policy state is at revision %d, the resolution was built on %d", broker.ErrConflict, q.State.Rev, *r.IfRev)
	}
	return nil
}

// SaveProgress records the answer to prompt i of a pending question, first
// answer wins.
func (s *Store) SaveProgress(ctx context.Context, id string, i int, a broker.Answer) (*broker.Question, error) {
	return s.modify(ctx, "save progress "+id, id, func(q *broker.Question) error {
		if i < 0 || i >= len(q.Prompts) {
			return fmt.Errorf("%w: prompt %d does not exist (the question has %d)", broker.ErrInvalid, i+1, len(q.Prompts))
		}
		for len(q.Progress) < len(q.Prompts) {
			q.Progress = append(q.Progress, nil)
		}
		if q.Progress[i] != nil {
			return fmt.Errorf("%w: prompt %d is already answered", broker.ErrConflict, i+1)
		}
		q.Progress[i] = &a
		return nil
	})
}

// SetSelection replaces the toggled options of prompt i of a pending
// question.
func (s *Store) SetSelection(ctx context.Context, id string, i int, options []int) (*broker.Question, error) {
	return s.modify(ctx, "set selection "+id, id, func(q *broker.Question) error {
		if i < 0 || i >= len(q.Prompts) {
			return fmt.Errorf("%w: prompt %d does not exist (the question has %d)", broker.ErrInvalid, i+1, len(q.Prompts))
		}
		if q.Selections == nil {
			q.Selections = map[int][]int{}
		}
		q.Selections[i] = append([]int{}, options...)
		return nil
	})
}

// modify changes a pending question with fn in one transaction and returns
// the result. A closed question gives a *broker.ClosedError.
func (s *Store) modify(ctx context.Context, op, id string, fn func(q *broker.Question) error) (*broker.Question, error) {
	var out *broker.Question
	err := s.write(ctx, op, func(ctx context.Context, tx *wtx) error {
		q, err := s.loadTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if q.Status != broker.StatusPending {
			return &broker.ClosedError{Question: q}
		}
		if err := fn(q); err != nil {
			return err
		}
		if err := s.saveTx(ctx, tx, q); err != nil {
			return err
		}
		out = q
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// loadTx reads a question inside a write transaction.
func (s *Store) loadTx(ctx context.Context, tx *wtx, id string) (*broker.Question, error) {
	s.rowsLoaded.Add(1)
	var raw []byte
	err := tx.StmtContext(ctx, s.stmts.getWrite).QueryRowContext(ctx, id).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, broker.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return s.decoded.decode(id, raw)
}

// saveTx writes back a pending question changed in a write transaction.
func (s *Store) saveTx(ctx context.Context, tx *wtx, q *broker.Question) error {
	data, err := json.Marshal(q)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	_, err = tx.StmtContext(ctx, s.stmts.updateData).ExecContext(ctx, data, nullMS(q.NextReminder()), nullMS(q.LeaseUntil), q.ID)
	return err
}

// List returns the questions matching f, newest first.
func (s *Store) List(ctx context.Context, f broker.Filter) ([]*broker.Question, error) {
	if s.closed.Load() {
		return nil, s.fail("list", errStoreClosed)
	}
	var where []string
	var args []any
	add := func(cond string, arg ...any) {
		where = append(where, cond)
		args = append(args, arg...)
	}
	if f.Agent != "" {
		add("agent = ?", f.Agent)
	}
	if f.SessionID != "" {
		add("session_id = ?", f.SessionID)
	}
	if f.Status != "" {
		add("status = ?", string(f.Status))
	}
	// A copy is in the question's row (in-process, schema step 11) or a
	// row of messages.
	switch {
	case f.Channel != "" && f.Chat != "":
		add(`(EXISTS (SELECT 1 FROM json_each(questions.copies) WHERE value ->> 0 = ? AND value ->> 1 = ?)
			OR id IN (SELECT question_id FROM messages WHERE channel = ? AND chat = ?))`, f.Channel, f.Chat, f.Channel, f.Chat)
	case f.Channel != "":
		add(`(EXISTS (SELECT 1 FROM json_each(questions.copies) WHERE value ->> 0 = ?)
			OR id IN (SELECT question_id FROM messages WHERE channel = ?))`, f.Channel, f.Channel)
	case f.Chat != "":
		add(`(EXISTS (SELECT 1 FROM json_each(questions.copies) WHERE value ->> 1 = ?)
			OR id IN (SELECT question_id FROM messages WHERE chat = ?))`, f.Chat, f.Chat)
	}
	query := "SELECT data FROM questions"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY created_at DESC, rowid DESC LIMIT ?"
	args = append(args, limitArg(f.Limit))
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.fail("list", err)
	}
	defer rows.Close()
	var out []*broker.Question
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			return nil, s.fail("list", err)
		}
		q, err := decode(raw)
		if err != nil {
			return nil, fmt.Errorf("sqlite: list: %w", err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("list", err)
	}
	return out, nil
}

// normalized returns a shallow copy of q with every time in UTC, cut to
// the millisecond the columns keep.
func normalized(q *broker.Question) *broker.Question {
	c := *q
	c.Reminders = append([]time.Time(nil), q.Reminders...)
	c.CreatedAt, c.ExpiresAt = utcMS(c.CreatedAt), utcMS(c.ExpiresAt)
	c.ResolvedAt, c.LeaseUntil = utcMS(c.ResolvedAt), utcMS(c.LeaseUntil)
	for i := range c.Reminders {
		c.Reminders[i] = utcMS(c.Reminders[i])
	}
	return &c
}

// decode reads a stored question.
func decode(raw []byte) (*broker.Question, error) {
	var q broker.Question
	if err := json.Unmarshal(raw, &q); err != nil {
		return nil, fmt.Errorf("decode stored question: %w", err)
	}
	return &q, nil
}
