package sqlite

import (
	"context"
	"database/sql"
)

// statements are the queries of the hot paths (create, get, resolve, the
// sweeper's scans, posted copies), prepared once when the store opens.
type statements struct {
	getWrite *sql.Stmt // on the writer, inside transactions
	getRead  *sql.Stmt // on the read pool
	byKey    *sql.Stmt
	insert   *sql.Stmt
	resolve  *sql.Stmt
	// resolveIf is resolve that also requires the row's text to be the
	// one this process last wrote or read (Resolve).
	resolveIf  *sql.Stmt
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
	// The platform outbox's (platform_outbox.go): anyTaskDue (read
	// pool) looks before claimTasks (writer) claims; the ...Of pair is
	// for the tasks of one question.
	exists       *sql.Stmt
	enqueueTask  *sql.Stmt
	postTargets  *sql.Stmt
	anyTaskDue   *sql.Stmt
	anyTaskDueOf *sql.Stmt
	claimTasks   *sql.Stmt
	claimTasksOf *sql.Stmt
	taskState    *sql.Stmt
	updateTask   *sql.Stmt
	platformWork *sql.Stmt
	// The audit trail's (audit.go): the end of a trail, and an entry
	// appended after it.
	auditTail   *sql.Stmt
	auditInsert *sql.Stmt
	all         []*sql.Stmt
}

const (
	sqlGet        = `SELECT data FROM questions WHERE id = ?`
	sqlByKey      = `SELECT data FROM questions WHERE agent = ? AND session_id = ? AND tool_call_id = ? AND tool_call_id != ''`
	sqlInsert     = `INSERT INTO questions (id, agent, session_id, tool_call_id, status, expires_at, next_reminder_at, lease_until, created_at, resolved_at, data, copies) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`
	sqlResolve    = `UPDATE questions SET status = ?, resolved_at = ?, data = ? WHERE id = ? AND status = 'pending'`
	sqlResolveIf  = `UPDATE questions SET status = ?, resolved_at = ?, data = ? WHERE id = ? AND status = 'pending' AND data = ?`
	sqlUpdateData = `UPDATE questions SET data = ?, next_reminder_at = ?, lease_until = ? WHERE id = ? AND status = 'pending'`
	sqlEvent      = `INSERT INTO events (question_id, agent, session_id, status, at) VALUES (?, ?, ?, ?, ?)`
	sqlDelivery   = `INSERT INTO deliveries (id, question_id, agent, url, state, attempts, next_at, last_error, created_at, updated_at) VALUES (?, ?, ?, ?, 'pending', 0, ?, '', ?, ?)`
	sqlDue        = `SELECT id FROM questions WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at, id LIMIT ?`
	sqlReminders  = `SELECT id FROM questions WHERE status = 'pending' AND next_reminder_at IS NOT NULL AND next_reminder_at <= ? ORDER BY next_reminder_at, id LIMIT ?`
	sqlLeases     = `SELECT id FROM questions WHERE status = 'pending' AND lease_until IS NOT NULL AND lease_until <= ? ORDER BY lease_until, id LIMIT ?`
	sqlPending    = `SELECT n FROM pending_counts WHERE agent = ?`
	sqlAnyDue     = `SELECT EXISTS (SELECT 1 FROM deliveries WHERE state = 'pending' AND next_at <= ?)`
	sqlClaim      = `UPDATE deliveries SET next_at = ?
		WHERE id IN (SELECT id FROM deliveries WHERE state = 'pending' AND next_at <= ? ORDER BY next_at, id LIMIT ?)
		RETURNING ` + deliveryColumns
	sqlExists       = `SELECT EXISTS (SELECT 1 FROM questions WHERE id = ?)`
	sqlPostTargets  = `SELECT channel, chat FROM platform_tasks WHERE question_id = ? AND kind = 'post'`
	sqlAnyTaskDue   = `SELECT EXISTS (SELECT 1 FROM platform_tasks WHERE state IN ('queued', 'retrying') AND next_at <= ?1)`
	sqlAnyTaskDueOf = `SELECT EXISTS (SELECT 1 FROM platform_tasks WHERE question_id = ?2 AND state IN ('queued', 'retrying') AND next_at <= ?1)`
	sqlClaimTasks   = `UPDATE platform_tasks SET next_at = ?2, claim = ?2
		WHERE (question_id, kind, channel, chat) IN (SELECT question_id, kind, channel, chat FROM platform_tasks
			WHERE state IN ('queued', 'retrying') AND next_at <= ?1 ORDER BY next_at LIMIT ?3)
		RETURNING ` + taskColumns
	sqlClaimTasksOf = `UPDATE platform_tasks SET next_at = ?3, claim = ?3
		WHERE (question_id, kind, channel, chat) IN (SELECT question_id, kind, channel, chat FROM platform_tasks
			WHERE question_id = ?2 AND state IN ('queued', 'retrying') AND next_at <= ?1 ORDER BY next_at LIMIT ?4)
		RETURNING ` + taskColumns
	sqlTaskState  = `SELECT gen, claim, state FROM platform_tasks WHERE question_id = ? AND kind = ? AND channel = ? AND chat = ?`
	sqlUpdateTask = `UPDATE platform_tasks SET state = ?, attempts = ?, next_at = ?, last_error = ?, error_class = ?,
		message_id = CASE WHEN ? != '' THEN ? ELSE message_id END, claim = 0, updated_at = ?
		WHERE question_id = ? AND kind = ? AND channel = ? AND chat = ?`
	sqlPlatformWork = `SELECT ` + taskColumns + ` FROM platform_tasks WHERE question_id = ?
		ORDER BY CASE kind WHEN 'post' THEN 0 WHEN 'edit' THEN 1 ELSE 2 END, kind, channel, chat`
)

// The statements of posted copies. A copy is keyed by its question's
// creation time as well as its id (schema step 10).
const (
	// sqlAddMessage takes the time from the question, and finds no row
	// for an unknown one.
	sqlAddMessage = `INSERT INTO messages (question_id, question_created_at, channel, chat, message_id, posted_at)
		SELECT id, created_at, ?2, ?3, ?4, ?5 FROM questions WHERE id = ?1`
	// sqlMessages lists a question's in-process copies, which its row
	// holds (schema step 11: posted at its creation, its id as message
	// id), then its rows in messages in the order written.
	sqlMessages = `SELECT channel, chat, message_id, posted_at FROM (
		SELECT 0 AS part, j.key AS n, j.value ->> 0 AS channel, j.value ->> 1 AS chat, q.id AS message_id, q.created_at AS posted_at
			FROM questions q, json_each(q.copies) j WHERE q.id = ?1
		UNION ALL
		SELECT 1, seq, channel, chat, message_id, posted_at FROM messages
			WHERE question_created_at = (SELECT created_at FROM questions WHERE id = ?1) AND question_id = ?1
	) ORDER BY part, n`
	// sqlLookup looks in the platform index for a message id that is not
	// its question's, and through the question for one that is: among the
	// in-process copies its row holds, and among its rows in messages
	// (named: the index by channel and chat would match as many terms,
	// and hold every copy of the web inbox). A copy in the row counts as
	// the oldest of them.
	sqlLookup = `SELECT question_id FROM (
		SELECT seq, question_id FROM messages
			WHERE channel = ?1 AND chat = ?2 AND message_id = ?3 AND message_id != question_id
		UNION ALL
		SELECT m.seq, m.question_id FROM questions q
			JOIN messages m INDEXED BY messages_question ON m.question_created_at = q.created_at AND m.question_id = q.id
			WHERE q.id = ?3 AND m.channel = ?1 AND m.chat = ?2 AND m.message_id = ?3
		UNION ALL
		SELECT 0, q.id FROM questions q, json_each(q.copies) j
			WHERE q.id = ?3 AND j.value ->> 0 = ?1 AND j.value ->> 1 = ?2
	) ORDER BY seq DESC LIMIT 1`
)

// preparer is the writer connection (*sql.Conn) or the readers' pool
// (*sql.DB).
type preparer interface {
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// prepare prepares the writes' statements on the writer connection, the
// committer's, and the reads' on the readers' pool.
func prepare(ctx context.Context, writer *sql.Conn, reader *sql.DB) (*statements, error) {
	st := &statements{}
	var err error
	p := func(db preparer, query string) *sql.Stmt {
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
	st.resolveIf = p(writer, sqlResolveIf)
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
	st.exists = p(writer, sqlExists)
	st.enqueueTask = p(writer, sqlEnqueueTask)
	st.postTargets = p(writer, sqlPostTargets)
	st.anyTaskDue = p(reader, sqlAnyTaskDue)
	st.anyTaskDueOf = p(reader, sqlAnyTaskDueOf)
	st.claimTasks = p(writer, sqlClaimTasks)
	st.claimTasksOf = p(writer, sqlClaimTasksOf)
	st.taskState = p(writer, sqlTaskState)
	st.updateTask = p(writer, sqlUpdateTask)
	st.platformWork = p(reader, sqlPlatformWork)
	st.auditTail = p(writer, sqlAuditTail)
	st.auditInsert = p(writer, sqlAuditInsert)
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
