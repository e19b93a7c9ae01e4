package sqlite

import (
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

// WriterDB and ReaderDB return the store's connection pools.
func WriterDB(s *Store) *sql.DB { return s.writer }
func ReaderDB(s *Store) *sql.DB { return s.reader }
