// Package sqlite is the embedded default store of askbridge: a single SQLite
// file (modernc.org/sqlite, pure Go, no cgo) in the data directory that
// implements broker.Store with zero set-up.
//
// # Layout
//
// Each question is kept whole as JSON in the questions table, next to the
// columns that lookups need: agent, session and tool-call id (with a unique
// index on the idempotency key where the tool-call id is set), status,
// deadline, next reminder, lease end and the creation and resolution times.
// Times are unix milliseconds in the columns and UTC, cut to the
// millisecond, in the JSON, so both always agree. Posted copies live in
// messages, indexed so that new entries go at an index's end rather than
// at a random question id's place: by their question's creation time and
// id, by channel and chat, and by platform message id where that is not
// the question's own id (the web inbox's and the text channel's copies
// are found through the question). The
// event log in events (resolutions, and the extended events of snoozes
// written in the transaction that moves the deadline; an AUTOINCREMENT
// sequence, so a number is never reused even after a purge), the callback outbox in deliveries, and the
// web inbox's sign-in sessions (a digest and an expiry) in web_sessions.
// The inboxes read questions from two partial indexes (inbox.go): the
// pending ones by creation time, the resolved ones by resolution time; a
// page checks the channel on the rows it walks, and walks at most 5,000
// resolved questions, so that a page of the web inbox costs the same
// however many questions the file keeps.
// Audit trails live in audit_log (audit.go), one row per sealed entry,
// numbered within its question and appended in the transaction of the
// change it records, with its time and agent indexed for the export; no
// foreign key ties them to questions, so Purge leaves them, and
// PurgeAudit removes the trails older than the audit retention of
// questions no longer kept. The
// schema carries a version number in schema_version and is created or
// migrated when the file is opened.
//
// # Writes and reads
//
// The file runs in WAL mode. Every write goes through one connection,
// which a committer goroutine keeps from Open to Close, so writes are
// serialized in the process; the writes' statements are prepared on that
// connection once, and the committer begins, commits and rolls back with
// statements of its own rather than a database/sql Tx, whose per-call
// copies of prepared statements and bookkeeping cost more than many of
// the statements they ran. Transactions begin IMMEDIATE, so two processes
// that open the same file still take turns. Writes that arrive while the committer is busy share
// the next transaction (group commit), each in its own savepoint: a write
// that fails is rolled back alone, and a caller hears of its write only
// after the commit; when several are waiting, the committer lets the
// writers about to join run once before it commits. Reads use a separate
// pool of read-only connections and never wait for the writer. A
// question whose row text is the one last decoded or written here is
// copied instead of decoded again (decoded.go); the row is read every
// time. Create decodes nothing: the question it returns, and keeps for
// those reads, is a copy of the one it encoded, with its times in UTC to
// the millisecond as the text holds them.
//
// A resolution is one atomic step: the compare-and-set
// (UPDATE … WHERE id = ? AND status = 'pending'), the event, and the
// outbox delivery when the question has a callback URL. Only after the
// commit is the id published on the resolution feed. When this process
// keeps the question's text as it last wrote or read it, the
// compare-and-set also requires the row to hold that text
// (… AND data = ?) and the row is not read first; a row that changed
// since is read, and the resolution decided on it.
//
// # Resolution feed
//
// Watch is an in-process fan-out: this store is meant for one bridge
// process. A subscriber that does not keep up never blocks a writer; the ids
// it missed are replaced by one empty id, which tells it to re-check every
// question it waits for.
//
// # Retention
//
// Purge removes questions resolved before a cut-off with their messages,
// events and finished deliveries, in chunks of a few hundred per
// transaction so that other writes go on meanwhile. A question whose
// callback is still being delivered is kept until the delivery is
// acknowledged or given up, because the callback carries the question's
// result. The event log is cut by time: events older than the cut-off go.
//
// # Errors
//
// Errors are wrapped with the operation that failed. A closed store, a busy,
// locked, full, read-only or damaged file gives an error that matches
// broker.ErrUnavailable; the broker's own states (ErrNotFound, ErrIDTaken,
// ErrConflict, *broker.ClosedError) are returned as the Store contract says.
package sqlite
