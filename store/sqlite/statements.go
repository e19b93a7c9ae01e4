package sqlite

import (
	"context"
	"database/sql"
)

// statements are the queries of the hot paths (create, get, resolve),
// prepared once when the store opens.
type statements struct {
	getWrite   *sql.Stmt // on the writer, inside transactions
	getRead    *sql.Stmt // on the read pool
	byKey      *sql.Stmt
	insert     *sql.Stmt
	resolve    *sql.Stmt
	updateData *sql.Stmt
	event      *sql.Stmt
	delivery   *sql.Stmt
	all        []*sql.Stmt
}

const (
	sqlGet        = `SELECT data FROM questions WHERE id = ?`
	sqlByKey      = `SELECT data FROM questions WHERE agent = ? AND session_id = ? AND tool_call_id = ? AND tool_call_id != ''`
	sqlInsert     = `INSERT INTO questions (id, agent, session_id, tool_call_id, status, expires_at, next_reminder_at, lease_until, created_at, resolved_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`
	sqlResolve    = `UPDATE questions SET status = ?, resolved_at = ?, data = ? WHERE id = ? AND status = 'pending'`
	sqlUpdateData = `UPDATE questions SET data = ?, next_reminder_at = ?, lease_until = ? WHERE id = ? AND status = 'pending'`
	sqlEvent      = `INSERT INTO events (question_id, agent, session_id, status, at) VALUES (?, ?, ?, ?, ?)`
	sqlDelivery   = `INSERT INTO deliveries (id, question_id, agent, url, state, attempts, next_at, last_error, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, '', ?, ?)`
)

func prepare(ctx context.Context, writer, reader *sql.DB) (*statements, error) {
	st := &statements{}
	var err error
	p := func(db *sql.DB, query string) *sql.Stmt {
		if err != nil {
			return nil
		}
		var s *sql.Stmt
		s, err = db.PrepareContext(ctx, query)
		if s != nil {
			st.all = append(st.all, s)
		}
		return s
	}
	st.getWrite = p(writer, sqlGet)
	st.getRead = p(reader, sqlGet)
	st.byKey = p(writer, sqlByKey)
	st.insert = p(writer, sqlInsert)
	st.resolve = p(writer, sqlResolve)
	st.updateData = p(writer, sqlUpdateData)
	st.event = p(writer, sqlEvent)
	st.delivery = p(writer, sqlDelivery)
	if err != nil {
		st.close()
		return nil, err
	}
	return st, nil
}

func (st *statements) close() {
	for _, s := range st.all {
		s.Close() //nolint:errcheck // closing a statement only frees memory
	}
}
