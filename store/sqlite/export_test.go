package sqlite

import (
	"context"
	"database/sql"
	"testing"
)

// CommitStats returns how many transactions the store's committer ran
// and how many writes they carried.
func CommitStats(s *Store) (commits, writes int64) {
	return s.committer.commits.Load(), s.committer.writes.Load()
}

// SetLinger turns the committer's wait for more writers on or off until
// the end of tb.
func SetLinger(tb testing.TB, on bool) {
	old := linger
	linger = on
	tb.Cleanup(func() { linger = old })
}

// WriterConn returns the writer connection the committer keeps, and
// ReaderDB the readers' pool.
func WriterConn(s *Store) *sql.Conn { return s.committer.conn }
func ReaderDB(s *Store) *sql.DB     { return s.reader }

// WriteSQL runs stmts, each with no arguments, as one write through the
// committer, then fails the write with fail when it is not nil.
func WriteSQL(ctx context.Context, s *Store, fail error, stmts ...string) error {
	return s.write(ctx, "test write", func(ctx context.Context, tx *wtx) error {
		for _, q := range stmts {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return fail
	})
}

// RowsLoaded returns how many question rows the store's writes read back.
func RowsLoaded(s *Store) int64 { return s.rowsLoaded.Load() }
