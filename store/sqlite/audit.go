package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
	sqlite3 "modernc.org/sqlite/lib"
)

// The audit trail (schema step 13): one row per entry, numbered from 1
// within its question (seq), with its time and agent as columns for the
// export, and the sealed entry as JSON. The rows outlive their question:
// PurgeAudit removes them after the audit retention.

// auditSchema is schema step 13: the audit trail in a table of its own,
// kept apart from the questions (no foreign key: Purge leaves it), with
// its time and agent for the export. The rows of the table before keep
// their order, take their question's agent and their time from the JSON,
// and stay unsealed (no hash): they were written before the chain.
const auditSchema = `CREATE TABLE audit_log (
		question_id TEXT NOT NULL,
		seq         INTEGER NOT NULL,
		at          INTEGER NOT NULL,
		agent       TEXT NOT NULL,
		data        TEXT NOT NULL
	);
	INSERT INTO audit_log (question_id, seq, at, agent, data)
		SELECT a.question_id, row_number() OVER (PARTITION BY a.question_id ORDER BY a.seq),
			coalesce(CAST(round(unixepoch(a.data ->> '$.at', 'subsec') * 1000) AS INTEGER), 0), q.agent, a.data
		FROM audit a JOIN questions q ON q.id = a.question_id;
	DROP TABLE audit;
	CREATE UNIQUE INDEX audit_log_question ON audit_log (question_id, seq);
	CREATE INDEX audit_log_at ON audit_log (at, question_id, seq);
	CREATE INDEX audit_log_agent ON audit_log (agent, at, question_id, seq);`

const (
	// sqlAuditTail reads a question's agent and the newest entry of its
	// trail (no row: no such question).
	sqlAuditTail = `SELECT q.agent, a.seq, a.data ->> '$.hash' FROM questions q
		LEFT JOIN audit_log a ON a.question_id = q.id WHERE q.id = ? ORDER BY a.seq DESC LIMIT 1`
	sqlAuditInsert = `INSERT INTO audit_log (question_id, seq, at, agent, data) VALUES (?, ?, ?, ?, ?)`
	sqlAuditRead   = `SELECT seq, agent, data FROM audit_log WHERE question_id = ? ORDER BY seq`
	// sqlAuditPurge removes, a batch of questions at a time, the trails
	// whose newest entry is before ?1, of questions no longer kept.
	sqlAuditPurge = `DELETE FROM audit_log WHERE question_id IN (
		SELECT DISTINCT c.question_id FROM audit_log c WHERE c.at < ?1
			AND NOT EXISTS (SELECT 1 FROM audit_log n WHERE n.question_id = c.question_id AND n.at >= ?1)
			AND NOT EXISTS (SELECT 1 FROM questions q WHERE q.id = c.question_id)
		LIMIT ?2)`
)

// auditPurgeBatch is how many questions' trails one transaction of
// PurgeAudit removes.
const auditPurgeBatch = 500

// auditTailTx returns the agent of question id and the seq and hash of
// the newest entry of its trail (0 and "" for none). An unknown question
// gives broker.ErrNotFound.
func (s *Store) auditTailTx(ctx context.Context, tx *wtx, id string) (agent string, n int64, prev string, err error) {
	var seq sql.NullInt64
	var hash sql.NullString
	err = tx.StmtContext(ctx, s.stmts.auditTail).QueryRowContext(ctx, id).Scan(&agent, &seq, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, "", fmt.Errorf("sqlite: audit %s: %w", id, broker.ErrNotFound)
	}
	return agent, seq.Int64, hash.String, err
}

// appendAuditTx seals entries after the entry n of question id's trail
// (whose hash is prev) and inserts them, in the caller's write. The
// store's question decides the agent; a trail that has an entry n+1
// already (a question id of a purged question whose trail is kept)
// gives broker.ErrIDTaken.
func (s *Store) appendAuditTx(ctx context.Context, tx *wtx, id, agent string, n int64, prev string, entries []broker.AuditEntry) error {
	for _, e := range entries {
		e.Question, e.Agent = id, agent
		n++
		data, err := broker.SealAudit(prev, n, &e)
		if err != nil {
			return err
		}
		_, err = tx.StmtContext(ctx, s.stmts.auditInsert).ExecContext(ctx, id, n, ms(e.At), agent, data)
		if isConstraint(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) {
			return fmt.Errorf("%w: %s has an audit trail", broker.ErrIDTaken, id)
		}
		if err != nil {
			return fmt.Errorf("append audit entry: %w", err)
		}
		prev = e.Hash
	}
	return nil
}

// addAuditTx appends entries to the trail of an existing question.
func (s *Store) addAuditTx(ctx context.Context, tx *wtx, id string, entries []broker.AuditEntry) error {
	if len(entries) == 0 {
		return nil
	}
	agent, n, prev, err := s.auditTailTx(ctx, tx, id)
	if err != nil {
		return err
	}
	return s.appendAuditTx(ctx, tx, id, agent, n, prev, entries)
}

// AddAudit appends entries to the audit trail of a question.
func (s *Store) AddAudit(ctx context.Context, id string, entries ...broker.AuditEntry) error {
	return s.write(ctx, "audit "+id, func(ctx context.Context, tx *wtx) error {
		if len(entries) == 0 {
			_, _, _, err := s.auditTailTx(ctx, tx, id)
			return err
		}
		return s.addAuditTx(ctx, tx, id, entries)
	})
}

// Audit returns the audit trail of a question, oldest first, also after
// the question was purged.
func (s *Store) Audit(ctx context.Context, id string) ([]broker.AuditEntry, error) {
	op := "audit " + id
	if s.closed.Load() {
		return nil, s.fail(op, errStoreClosed)
	}
	rows, err := s.reader.QueryContext(ctx, sqlAuditRead, id)
	if err != nil {
		return nil, s.fail(op, err)
	}
	out, err := scanAudit(rows, id)
	if err != nil {
		return nil, s.fail(op, err)
	}
	if len(out) == 0 {
		var exists bool
		if err := s.reader.QueryRowContext(ctx, sqlExists, id).Scan(&exists); err != nil {
			return nil, s.fail(op, err)
		}
		if !exists {
			return nil, fmt.Errorf("sqlite: question %s: %w", id, broker.ErrNotFound)
		}
	}
	return out, nil
}

// scanAudit reads rows of (seq, agent, data), or of (question_id, seq,
// agent, data) when id is empty. An entry written before the chain
// takes its question, agent and seq from its row.
func scanAudit(rows *sql.Rows, id string) ([]broker.AuditEntry, error) {
	defer rows.Close()
	out := []broker.AuditEntry{}
	for rows.Next() {
		var q, agent string
		var seq int64
		var raw []byte
		var err error
		if id == "" {
			err = rows.Scan(&q, &seq, &agent, &raw)
		} else {
			q = id
			err = rows.Scan(&seq, &agent, &raw)
		}
		if err != nil {
			return nil, err
		}
		var e broker.AuditEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("decode audit entry %d of %s: %w", seq, q, err)
		}
		if e.Hash == "" {
			e.Question, e.Agent, e.Seq = q, agent, seq
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// AuditSince returns the entries f selects, oldest first.
func (s *Store) AuditSince(ctx context.Context, f broker.AuditFilter) ([]broker.AuditEntry, error) {
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("sqlite: audit export: %w", err)
	}
	if s.closed.Load() {
		return nil, s.fail("audit export", errStoreClosed)
	}
	// ?1 since, ?2 limit, ?3 agent, ?4 and ?5 the entry to resume after.
	where := "at >= ?1"
	if f.AfterQuestion != "" {
		where = "(at, question_id, seq) > (?1, ?4, ?5)"
	}
	if f.Agent != "" {
		where = "agent = ?3 AND " + where
	}
	query := `SELECT question_id, seq, agent, data FROM audit_log WHERE ` + where + ` ORDER BY at, question_id, seq LIMIT ?2`
	args := []any{ms(f.Since), f.Limit, f.Agent, f.AfterQuestion, f.AfterSeq}
	switch {
	case f.AfterQuestion == "" && f.Agent == "":
		args = args[:2]
	case f.AfterQuestion == "":
		args = args[:3]
	}
	rows, err := s.reader.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.fail("audit export", err)
	}
	out, err := scanAudit(rows, "")
	if err != nil {
		return nil, s.fail("audit export", err)
	}
	return out, nil
}

// PurgeAudit removes the trails whose newest entry is before before, a
// batch of questions per transaction, and returns how many entries went.
// The trail of a question still kept stays, whatever its age.
func (s *Store) PurgeAudit(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		var n int64
		err := s.write(ctx, "purge audit", func(ctx context.Context, tx *wtx) error {
			res, err := tx.ExecContext(ctx, sqlAuditPurge, ms(before), auditPurgeBatch)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += int(n)
		if err != nil || n == 0 {
			return total, err
		}
	}
}
