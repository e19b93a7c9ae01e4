package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/broker"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// readConns is the size of the read pool.
const readConns = 4

// mmapSize is the most of the database file, in bytes, each read
// connection maps into memory (SQLite's mmap_size); walAutocheckpoint is the WAL
// size, in pages, at which a commit copies the WAL back into the file
// (SQLite's default is 1000).
const (
	mmapSize          = "268435456"
	walAutocheckpoint = "4000"
)

// Store is the SQLite implementation of broker.Store. Create it with Open.
type Store struct {
	path   string
	writer *sql.DB // one connection: every write goes through it
	reader *sql.DB // read-only connections
	stmts  *statements
	feed   *feed
	// decoded saves decoding the questions read again unchanged.
	decoded *decodedCache
	// rowsLoaded counts the rows a write read back (loadTx).
	rowsLoaded atomic.Int64

	committer *committer

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var _ broker.Store = (*Store)(nil)

// Open opens the SQLite store in the file at path, creating the file and
// its directory when missing, and creates or migrates the schema.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: open: empty path: name the database file")
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("sqlite: open %s: create directory: %w", path, err)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("sqlite: open %s: is a directory, not a database file", path)
	}
	// Create the file before SQLite does, readable by its owner only: it
	// holds what agents asked and people answered. SQLite gives its WAL
	// and shared-memory files the same permissions.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	f.Close()
	writer, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	if err := migrate(ctx, writer); err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, describe(err))
	}
	reader, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	reader.SetMaxOpenConns(readConns)
	reader.SetMaxIdleConns(readConns)
	if err := reader.PingContext(ctx); err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, describe(err))
	}
	// The committer keeps the writer's one connection from here to Close
	// (writer.go): its transactions and prepared statements are on it.
	wconn, err := writer.Conn(ctx)
	if err != nil {
		writer.Close()
		reader.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, describe(err))
	}
	closeAll := func() {
		wconn.Close()
		writer.Close()
		reader.Close()
	}
	st, err := prepare(ctx, wconn, reader)
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("sqlite: open %s: prepare: %w", path, describe(err))
	}
	c, err := startCommitter(ctx, wconn)
	if err != nil {
		st.close()
		closeAll()
		return nil, fmt.Errorf("sqlite: open %s: prepare: %w", path, describe(err))
	}
	return &Store{path: path, writer: writer, reader: reader, stmts: st, feed: newFeed(), committer: c, decoded: newDecodedCache()}, nil
}

// dsn returns the connection string for path. Characters that are special
// in a URI are escaped, so any file name works.
func dsn(path string, readOnly bool) string {
	p := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
	q := "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(on)"
	if readOnly {
		// mmap_size lets a reader take the pages of the database file
		// (not those still in the WAL) from a shared mapping instead of a
		// pread call each: a reader drops its page cache at every read
		// transaction that follows a commit, so under load it would read
		// every page again.
		q += "&_pragma=mmap_size(" + mmapSize + ")"
		q += "&_pragma=query_only(on)&_pragma=cache_size(-8000)"
	} else {
		// The writer has no map: its page cache lasts across its
		// transactions, and a page it reads through a map stays resident
		// in the map, outside the cache's cap, so that the bridge's RSS
		// grew with the file (docs/benchmarks.md, "Soak").
		//
		// temp_store keeps the savepoints' sub-journals of a group
		// commit (writer.go) in memory: they only undo a failed write
		// inside its transaction, so no durability rests on them.
		//
		// wal_autocheckpoint: a checkpoint copies the newest version of
		// every page in the WAL to the database file. The hot pages (the
		// index leaves the newest questions go to, the counters) are
		// written by nearly every commit, so a longer interval copies
		// each of them once for more commits.
		q += "&_txlock=immediate&_pragma=cache_size(-16000)&_pragma=temp_store(memory)&_pragma=wal_autocheckpoint(" + walAutocheckpoint + ")"
	}
	return "file:" + p + q
}

// Path returns the file the store was opened on.
func (s *Store) Path() string { return s.path }

// Close closes the resolution feeds and the database. Calling it again
// does nothing.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		s.committer.close()
		s.feed.close()
		s.stmts.close()
		// Keep the query planner's statistics fresh for the next run;
		// SQLite recommends this before closing a long-lived connection.
		s.committer.conn.ExecContext(context.Background(), `PRAGMA optimize`) //nolint:errcheck // an optimization only
		s.committer.conn.Close()                                              //nolint:errcheck // the pool's Close reports
		rerr := s.reader.Close()
		werr := s.writer.Close()
		if err := errors.Join(werr, rerr); err != nil {
			s.closeErr = fmt.Errorf("sqlite: close %s: %w", s.path, err)
		}
	})
	return s.closeErr
}

// Ping checks that the file can be read and written.
func (s *Store) Ping(ctx context.Context) error {
	if s.closed.Load() {
		return s.fail("ping", errStoreClosed)
	}
	if err := s.committer.conn.PingContext(ctx); err != nil {
		return s.fail("ping", err)
	}
	var n int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM schema_version`).Scan(&n); err != nil {
		return s.fail("ping", err)
	}
	return nil
}

var errStoreClosed = errors.New("store is closed")

// fail wraps err from operation op. Failures of the file or the connection
// match broker.ErrUnavailable; the broker's own errors pass through.
func (s *Store) fail(op string, err error) error {
	if err == nil {
		return nil
	}
	if unavailable(err) || s.closed.Load() {
		return fmt.Errorf("sqlite: %s: %w: %w", op, broker.ErrUnavailable, describe(err))
	}
	return fmt.Errorf("sqlite: %s: %w", op, err)
}

// unavailable reports whether err means the database cannot be used now.
func unavailable(err error) bool {
	if errors.Is(err, errStoreClosed) || errors.Is(err, sql.ErrConnDone) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN,
			sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB,
			sqlite3.SQLITE_PERM, sqlite3.SQLITE_NOMEM:
			return true
		}
	}
	return strings.Contains(err.Error(), "sql: database is closed")
}

// describe adds a hint to errors whose SQLite message does not say what
// to do.
func describe(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return fmt.Errorf("not a usable askbridge database (damaged or another kind of file): %w", err)
		case sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM, sqlite3.SQLITE_READONLY:
			return fmt.Errorf("cannot open the file for reading and writing (check the path and its permissions): %w", err)
		}
	}
	return err
}

// isConstraint reports whether err is a constraint violation with the
// given extended code.
func isConstraint(err error, code int) bool {
	if err == nil {
		return false // errors.As would allocate its target all the same
	}
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == code
}

// ms returns t as unix milliseconds.
func ms(t time.Time) int64 { return t.UnixMilli() }

// nullMS returns t as unix milliseconds, or NULL for the zero time.
func nullMS(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// fromMS returns the UTC time of unix milliseconds v.
func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

// utcMS returns t in UTC cut to the millisecond; the zero time stays zero.
func utcMS(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC().Truncate(time.Millisecond)
}

// limitArg turns a limit of zero or less into SQLite's "no limit".
func limitArg(limit int) int {
	if limit <= 0 {
		return -1
	}
	return limit
}
