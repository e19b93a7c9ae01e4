package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations holds the schema, one step per version. Step i brings the file
// from version i to version i+1. Steps are only ever appended.
//
// Indexes cost a page write on every resolution, which is the hot path of
// the timeout sweeper, so only lookups that run often have one: Purge (rare)
// scans questions and events, and Events scans forward from the sequence
// number a client resumes after, which is recent in practice. The
// deadline, reminder and lease indexes cover their queries (time, id), so
// the sweeper reads a batch without sorting or visiting the rows.
var migrations = []string{
	// 1: questions, posted copies, event log, callback outbox.
	`CREATE TABLE questions (
		id               TEXT PRIMARY KEY,
		agent            TEXT NOT NULL,
		session_id       TEXT NOT NULL DEFAULT '',
		tool_call_id     TEXT NOT NULL DEFAULT '',
		status           TEXT NOT NULL,
		expires_at       INTEGER NOT NULL,
		next_reminder_at INTEGER,
		lease_until      INTEGER,
		created_at       INTEGER NOT NULL,
		resolved_at      INTEGER,
		data             TEXT NOT NULL
	);
	CREATE UNIQUE INDEX questions_idempotency ON questions (agent, session_id, tool_call_id) WHERE tool_call_id != '';
	CREATE INDEX questions_due ON questions (expires_at, id) WHERE status = 'pending';
	CREATE INDEX questions_reminders ON questions (next_reminder_at, id) WHERE status = 'pending' AND next_reminder_at IS NOT NULL;
	CREATE INDEX questions_leases ON questions (lease_until, id) WHERE status = 'pending' AND lease_until IS NOT NULL;
	CREATE INDEX questions_created ON questions (created_at);
	CREATE INDEX questions_agent ON questions (agent, created_at);
	CREATE INDEX questions_session ON questions (session_id, created_at);

	CREATE TABLE messages (
		seq         INTEGER PRIMARY KEY AUTOINCREMENT,
		question_id TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
		channel     TEXT NOT NULL,
		chat        TEXT NOT NULL DEFAULT '',
		message_id  TEXT NOT NULL DEFAULT '',
		posted_at   INTEGER NOT NULL
	);
	CREATE INDEX messages_platform ON messages (channel, chat, message_id);
	CREATE INDEX messages_question ON messages (question_id);

	CREATE TABLE events (
		seq         INTEGER PRIMARY KEY AUTOINCREMENT,
		question_id TEXT NOT NULL,
		agent       TEXT NOT NULL,
		session_id  TEXT NOT NULL DEFAULT '',
		status      TEXT NOT NULL,
		at          INTEGER NOT NULL
	);

	CREATE TABLE deliveries (
		id          TEXT PRIMARY KEY,
		question_id TEXT NOT NULL,
		agent       TEXT NOT NULL,
		url         TEXT NOT NULL,
		state       TEXT NOT NULL,
		attempts    INTEGER NOT NULL DEFAULT 0,
		next_at     INTEGER NOT NULL,
		last_error  TEXT NOT NULL DEFAULT '',
		created_at  INTEGER NOT NULL,
		updated_at  INTEGER NOT NULL
	);
	CREATE INDEX deliveries_due ON deliveries (next_at) WHERE state = 'pending';
	CREATE INDEX deliveries_question ON deliveries (question_id);`,

	// 2: the pending questions of each agent, counted by triggers on every
	// change of questions, so that Create reads the count in one lookup
	// instead of counting rows, and no code path can forget to keep it.
	`CREATE TABLE pending_counts (
		agent TEXT PRIMARY KEY,
		n     INTEGER NOT NULL
	) WITHOUT ROWID;
	INSERT INTO pending_counts (agent, n) SELECT agent, count(*) FROM questions WHERE status = 'pending' GROUP BY agent;
	CREATE TRIGGER pending_counts_insert AFTER INSERT ON questions WHEN NEW.status = 'pending' BEGIN
		INSERT OR IGNORE INTO pending_counts (agent, n) VALUES (NEW.agent, 0);
		UPDATE pending_counts SET n = n + 1 WHERE agent = NEW.agent;
	END;
	CREATE TRIGGER pending_counts_update AFTER UPDATE OF status ON questions WHEN OLD.status = 'pending' AND NEW.status != 'pending' BEGIN
		UPDATE pending_counts SET n = n - 1 WHERE agent = OLD.agent;
		DELETE FROM pending_counts WHERE agent = OLD.agent AND n <= 0;
	END;
	CREATE TRIGGER pending_counts_delete AFTER DELETE ON questions WHEN OLD.status = 'pending' BEGIN
		UPDATE pending_counts SET n = n - 1 WHERE agent = OLD.agent;
		DELETE FROM pending_counts WHERE agent = OLD.agent AND n <= 0;
	END;`,

	// 3: web inbox sign-in sessions, by digest (sessions.go).
	`CREATE TABLE web_sessions (
		digest     TEXT PRIMARY KEY,
		expires_at INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);`,

	// 4: files sent with answers (attachments.go). A deleted file keeps
	// its row with no data, so that its number is never given again. The
	// rows go with their question.
	`CREATE TABLE attachments (
		question_id TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
		n           INTEGER NOT NULL,
		name        TEXT NOT NULL,
		type        TEXT NOT NULL,
		size        INTEGER NOT NULL,
		data        BLOB
	);
	CREATE UNIQUE INDEX attachments_question ON attachments (question_id, n);`,

	// 5: the audit log of team policies (votes.go): votes, refusals,
	// snoozes, escalations, oldest first by seq. The rows go with their
	// question.
	`CREATE TABLE audit (
		seq         INTEGER PRIMARY KEY AUTOINCREMENT,
		question_id TEXT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
		data        TEXT NOT NULL
	);
	CREATE INDEX audit_question ON audit (question_id, seq);`,

	// 6: the platform outbox (platform_outbox.go): one row per
	// (question, kind, target), going with its question; and the pacing
	// slots shared by every instance on the file.
	platformOutboxSchema,
	// 7: when the next escalation step of a pending question is due
	// (escalate.go); a row goes when its question is resolved or deleted.
	`CREATE TABLE escalations (
		question_id TEXT PRIMARY KEY REFERENCES questions (id) ON DELETE CASCADE,
		due_at      INTEGER NOT NULL
	) WITHOUT ROWID;
	CREATE INDEX escalations_due ON escalations (due_at, question_id);
	CREATE TRIGGER escalations_resolved AFTER UPDATE OF status ON questions WHEN OLD.status = 'pending' AND NEW.status != 'pending' BEGIN
		DELETE FROM escalations WHERE question_id = OLD.id;
	END;`,
	// 8: the event log also holds the extensions of deadlines by snoozes
	// (extended.go): their type, and what they tell as JSON.
	`ALTER TABLE events ADD COLUMN type TEXT NOT NULL DEFAULT 'resolved';
	ALTER TABLE events ADD COLUMN extension TEXT;`,
	// 9: an agent's count stays when it drops to zero, and a new question
	// adds to it in one statement. Before, an agent with one question at
	// a time had its row deleted by every resolution and written again
	// by its next question; Purge now drops the rows at zero.
	`DROP TRIGGER pending_counts_insert;
	DROP TRIGGER pending_counts_update;
	DROP TRIGGER pending_counts_delete;
	CREATE TRIGGER pending_counts_insert AFTER INSERT ON questions WHEN NEW.status = 'pending' BEGIN
		INSERT INTO pending_counts (agent, n) VALUES (NEW.agent, 1) ON CONFLICT (agent) DO UPDATE SET n = n + 1;
	END;
	CREATE TRIGGER pending_counts_update AFTER UPDATE OF status ON questions WHEN OLD.status = 'pending' AND NEW.status != 'pending' BEGIN
		UPDATE pending_counts SET n = n - 1 WHERE agent = OLD.agent;
	END;
	CREATE TRIGGER pending_counts_delete AFTER DELETE ON questions WHEN OLD.status = 'pending' BEGIN
		UPDATE pending_counts SET n = n - 1 WHERE agent = OLD.agent;
	END;`,
	// 10: the posted copies in indexes that grow at their end. Question
	// ids are random, so an index keyed by one takes each new entry on a
	// page of its own: every copy recorded wrote two such pages (by
	// question, and by platform message id, which is the question's id
	// for the in-process copies of the web inbox and the text channel),
	// and as the file grew, each commit and checkpoint wrote more pages.
	// Now a copy is found by its question's creation time, then id; by
	// channel and chat in the order written (the implicit seq); and by
	// platform message id only when that id is not its question's (the
	// others are found through the question). Without an index on the
	// question id alone, the foreign key's cascade would scan the table
	// for every question deleted, so a trigger deletes the copies instead.
	`CREATE TABLE messages_new (
		seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
		question_id         TEXT NOT NULL,
		question_created_at INTEGER NOT NULL,
		channel             TEXT NOT NULL,
		chat                TEXT NOT NULL DEFAULT '',
		message_id          TEXT NOT NULL DEFAULT '',
		posted_at           INTEGER NOT NULL
	);
	INSERT INTO messages_new (seq, question_id, question_created_at, channel, chat, message_id, posted_at)
		SELECT m.seq, m.question_id, q.created_at, m.channel, m.chat, m.message_id, m.posted_at
		FROM messages m JOIN questions q ON q.id = m.question_id;
	DELETE FROM sqlite_sequence WHERE name = 'messages_new';
	INSERT INTO sqlite_sequence (name, seq) SELECT 'messages_new', seq FROM sqlite_sequence WHERE name = 'messages';
	DROP TABLE messages;
	ALTER TABLE messages_new RENAME TO messages;
	CREATE INDEX messages_question ON messages (question_created_at, question_id);
	CREATE INDEX messages_chat ON messages (channel, chat);
	CREATE INDEX messages_platform ON messages (channel, chat, message_id) WHERE message_id != question_id;
	CREATE TRIGGER messages_purge AFTER DELETE ON questions BEGIN
		DELETE FROM messages WHERE question_created_at = OLD.created_at AND question_id = OLD.id;
	END;`,
	// 11: the in-process copies (the web inbox's, the text channel's) in
	// their question's row. Such a copy is posted when its question is
	// created and its message id is the question's id, so its channel and
	// chat say all there is to it: a JSON array of [channel, chat] pairs.
	// Writing them as rows of messages made every Create insert two rows
	// into a table with two indexes and an AUTOINCREMENT counter, which
	// was a quarter of the store's CPU per cycle and half of the pages
	// its commits wrote. Copies recorded as rows before this step stay
	// rows and are found as before; the copies posted later on a platform
	// (AddMessage) are rows as ever.
	`ALTER TABLE questions ADD COLUMN copies TEXT NOT NULL DEFAULT '[]';`,
	// 12: the keys of webhook requests already taken, until they expire
	// (replay.go).
	replaySchema,
	// 13: the audit trail apart from the questions, sealed entry by
	// entry, kept after them and exported by time (audit.go).
	auditSchema,
	// 14: the approval rules the bridge keeps (rules.go).
	rulesSchema,
	// 15: the conversations of live agent sessions (conversations.go).
	conversationsSchema,
	// 16: the class of a platform task's last failure apart from its
	// text (platform_outbox.go).
	errorClassSchema,
	// 17: the inbox reads' step, which lands beside step 18; until then
	// a no-op, so that step 18 keeps its number.
	`SELECT 1;`,
	// 18: the web inbox's VAPID key pair and push subscriptions
	// (push.go).
	pushSchema,
}

// migrate brings the schema of the file to the newest version. It refuses
// a file written by a newer version of the program.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var version int
	err = tx.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version)
	switch {
	case err == sql.ErrNoRows:
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this program knows (%d): upgrade askbridge", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("schema step %d: %w", v+1, err)
		}
	}
	if version < len(migrations) {
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, len(migrations)); err != nil {
			return err
		}
	}
	return tx.Commit()
}
