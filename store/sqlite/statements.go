package sqlite

import (
	"context"
	"database/sql"
)

// statements are the queries of the hot paths (create, get, resolve, the
// sweeper's scans, posted copies), prepared once when the store opens.
type statements struct {
	getWrite   *sql.Stmt // on the writer, inside transactions
	getRead    *sql.Stmt // on the read pool
	byKey      *sql.Stmt
	insert     *sql.Stmt
	resolve    *sql.Stmt
	updateData *sql.Stmt
	event      *sql.Stmt
	delivery   *sql.Stmt
	addMessage *sql.Stmt
	messages   *sql.Stmt
	lookup     *sql.Stmt
	due        *sql.Stmt
	reminders  *sql.Stmt
	leases     *sql.Stmt
	// pendingCount reads an agent's pending questions, inside Create.
	pendingCount *sql.Stmt
	// anyDue (read pool) and claim (writer) are ClaimDeliveries'.
	anyDue *sql.Stmt
	claim  *sql.Stmt
	all    []*sql.Stmt
}

const (
	sqlGet        = `SELECT data FROM questions WHERE id = ?`
	sqlByKey      = `SELECT data FROM questions WHERE agent = ? AND session_id = ? AND tool_call_id = ? AND tool_call_id != ''`
	sqlInsert     = `INSERT INTO questions (id, agent, session_id, tool_call_id, status, expires_at, next_reminder_at, lease_until, created_at, resolved_at, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`
	sqlResolve    = `UPDATE questions SET status = ?, resolved_at = ?, data = ? WHERE id = ? AND status = 'pending'`
	sqlUpdateData = `UPDATE questions SET data = ?, next_reminder_at = ?, lease_until = ? WHERE id = ? AND status = 'pending'`
	sqlEvent      = `INSERT INTO events (question_id, agent, session_id, status, at) VALUES (?, ?, ?, ?, ?)`
	sqlDelivery   = `INSERT INTO deliveries (id, question_id, agent, url, state, attempts, next_at, last_error, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, '', ?, ?)`
	sqlAddMessage = `INSERT INTO messages (question_id, channel, chat, message_id, posted_at) VALUES (?, ?, ?, ?, ?)`
	sqlMessages   = `SELECT channel, chat, message_id, posted_at FROM messages WHERE question_id = ? ORDER BY seq`
	sqlLookup     = `SELECT question_id FROM messages WHERE channel = ? AND chat = ? AND message_id = ? ORDER BY seq DESC LIMIT 1`
	sqlDue        = `SELECT id FROM questions WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at, id LIMIT ?`
	sqlReminders  = `SELECT id FROM questions WHERE status = 'pending' AND next_reminder_at IS NOT NULL AND next_reminder_at <= ? ORDER BY next_reminder_at, id LIMIT ?`
	sqlLeases     = `SELECT id FROM questions WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until <= ? ORDER BY lease_until, id LIMIT ?`
	sqlPending    = `SELECT n FROM pending_counts WHERE agent = ?`
	sqlAnyDue     = `SELECT EXISTS (SELECT 1 FROM deliveries WHERE state = 'pending' AND next_at <= ?)`
	sqlClaim      = `UPDATE deliveries SET next_at = ?
		WHERE id IN (SELECT id FROM deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY next_at, id LIMIT ?)
		RETURNING ` + deliveryColumns
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
	st.addMessage = p(writer, sqlAddMessage)
	st.messages = p(reader, sqlMessages)
	st.lookup = p(reader, sqlLookup)
	st.due = p(reader, sqlDue)
	st.reminders = p(reader, sqlReminders)
	st.leases = p(reader, sqlLeases)
	st.pendingCount = p(writer, sqlPending)
	st.anyDue = p(reader, sqlAnyDue)
	st.claim = p(writer, sqlClaim)
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
