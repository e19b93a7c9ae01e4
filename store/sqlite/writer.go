package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"sync/atomic"
)

// maxBatch is how many writes share one transaction at most.
const maxBatch = 64

// linger lets the committer wait for one round of the scheduler when
// writers are queueing (run); a variable so that benchmarks can compare.
var linger = true

// writeReq is one write waiting for the committer.
type writeReq struct {
	ctx  context.Context
	fn   func(ctx context.Context, tx *wtx) error
	done chan error // capacity 1: the committer never waits for the caller
}

// wtx is the transaction a write runs in: the writer connection, which
// the committer keeps for itself from Open to Close, while the
// committer's transaction is open. The statements a write runs are
// prepared on that connection once (statements.go), so running one costs
// no per-transaction copy of it, as database/sql's Tx.StmtContext makes,
// and no bookkeeping of a Tx. A write must use it only until it returns.
type wtx struct{ conn *sql.Conn }

// StmtContext returns st, a statement prepared on the writer connection,
// to run in the transaction. It keeps a write's use of its statements
// reading as it does with a database/sql Tx. st must be one of the
// statements prepare puts on the writer (statements.go): one prepared on
// the readers' pool would run there, outside the transaction.
func (tx *wtx) StmtContext(_ context.Context, st *sql.Stmt) *sql.Stmt { return st }

// ExecContext runs a statement that is not prepared ahead in the
// transaction.
func (tx *wtx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.conn.ExecContext(ctx, query, args...)
}

// QueryContext runs a query that is not prepared ahead in the transaction.
func (tx *wtx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return tx.conn.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a query that is not prepared ahead in the
// transaction.
func (tx *wtx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return tx.conn.QueryRowContext(ctx, query, args...)
}

// committer owns the writer connection. It runs the writes that arrive
// while it is busy in one transaction ("group commit"), each in its own
// savepoint, so that one commit, the costly step, serves many callers; a
// write that fails is rolled back to its savepoint without touching the
// others. A lone write runs in a transaction of its own.
type committer struct {
	conn *sql.Conn
	// The statements that begin and end transactions and savepoints are
	// prepared once: a group commit runs a savepoint and its release
	// per write. BEGIN IMMEDIATE takes the write lock at once, so that a
	// transaction never fails for a lock it would take later.
	begin, commitTx, rollback      *sql.Stmt
	savepoint, rollbackTo, release *sql.Stmt
	reqs                           chan *writeReq
	// commits and writes count the transactions committed or tried and
	// the writes they carried, for the benchmarks' writes per commit.
	commits, writes atomic.Int64
	stop            chan struct{}
	done            chan struct{}
}

func startCommitter(ctx context.Context, conn *sql.Conn) (*committer, error) {
	c := &committer{conn: conn, reqs: make(chan *writeReq), stop: make(chan struct{}), done: make(chan struct{})}
	var err error
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&c.begin, `BEGIN IMMEDIATE`}, {&c.commitTx, `COMMIT`}, {&c.rollback, `ROLLBACK`},
		{&c.savepoint, `SAVEPOINT w`}, {&c.rollbackTo, `ROLLBACK TO w`}, {&c.release, `RELEASE w`},
	} {
		if *p.st, err = conn.PrepareContext(ctx, p.sql); err != nil {
			c.closeStmts()
			return nil, err
		}
	}
	go c.run()
	return c, nil
}

// closeStmts frees the committer's statements.
func (c *committer) closeStmts() {
	for _, st := range []*sql.Stmt{c.begin, c.commitTx, c.rollback, c.savepoint, c.rollbackTo, c.release} {
		if st != nil {
			st.Close() //nolint:errcheck // closing a statement only frees memory
		}
	}
}

// close stops the committer after the batch in progress.
func (c *committer) close() {
	close(c.stop)
	<-c.done
	c.closeStmts()
}

// write runs fn in a write transaction and returns when it is committed or
// has failed. fn gets a context that is not cancelled while it runs: once
// a write has started it finishes, so that a caller giving up cannot
// interrupt a transaction shared with others.
func (s *Store) write(ctx context.Context, op string, fn func(ctx context.Context, tx *wtx) error) error {
	if s.closed.Load() {
		return s.fail(op, errStoreClosed)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: %s: %w", op, err)
	}
	req := &writeReq{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case s.committer.reqs <- req:
	case <-ctx.Done():
		return fmt.Errorf("sqlite: %s: %w", op, ctx.Err())
	case <-s.committer.stop:
		return s.fail(op, errStoreClosed)
	}
	return s.fail(op, <-req.done)
}

func (c *committer) run() {
	defer close(c.done)
	batch := make([]*writeReq, 0, maxBatch)
	for {
		var first *writeReq
		select {
		case first = <-c.reqs:
		case <-c.stop:
			return
		}
		batch = c.collect(append(batch[:0], first))
		if linger && len(batch) > 1 && len(batch) < maxBatch {
			// Writers are queueing: others are likely about to. Letting
			// the runnable goroutines run once before committing costs
			// microseconds and lets one commit, the costly step, serve
			// them too.
			runtime.Gosched()
			batch = c.collect(batch)
		}
		c.commits.Add(1)
		c.writes.Add(int64(len(batch)))
		errs := c.commit(batch)
		for i, r := range batch {
			r.done <- errs[i]
			batch[i] = nil
		}
	}
}

// collect adds the writes that are waiting now to batch, up to maxBatch.
func (c *committer) collect(batch []*writeReq) []*writeReq {
	for len(batch) < maxBatch {
		select {
		case r := <-c.reqs:
			batch = append(batch, r)
		default:
			return batch
		}
	}
	return batch
}

// commit runs batch in one transaction and returns the outcome of each
// write. When the transaction as a whole fails, every write fails with it.
func (c *committer) commit(batch []*writeReq) []error {
	errs := make([]error, len(batch))
	all := func(err error) []error {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	ctx := context.Background()
	if _, err := c.begin.ExecContext(ctx); err != nil {
		return all(err)
	}
	tx := &wtx{conn: c.conn}
	if len(batch) == 1 {
		r := batch[0]
		if err := r.ctx.Err(); err != nil {
			c.abort(ctx)
			return all(err)
		}
		if err := r.fn(context.WithoutCancel(r.ctx), tx); err != nil {
			c.abort(ctx)
			return all(err)
		}
		if err := c.end(ctx); err != nil {
			return all(err)
		}
		return errs
	}
	for i, r := range batch {
		if err := r.ctx.Err(); err != nil {
			errs[i] = err
			continue
		}
		if _, err := c.savepoint.ExecContext(ctx); err != nil {
			c.abort(ctx)
			return all(err)
		}
		if errs[i] = r.fn(context.WithoutCancel(r.ctx), tx); errs[i] != nil {
			if _, err := c.rollbackTo.ExecContext(ctx); err != nil {
				c.abort(ctx)
				return all(fmt.Errorf("%w (and rolling back a failed write: %w)", errs[i], err))
			}
		}
		if _, err := c.release.ExecContext(ctx); err != nil {
			c.abort(ctx)
			return all(err)
		}
	}
	if err := c.end(ctx); err != nil {
		// Nothing was written, and a *broker.ClosedError seen inside the
		// transaction may describe a resolution that did not happen.
		return all(err)
	}
	return errs
}

// end commits the transaction. When the commit fails, the transaction is
// rolled back, so that the next one begins on a connection with none
// open: SQLite keeps a transaction open after some failed commits (a
// busy lock), and undoes it itself after others.
func (c *committer) end(ctx context.Context) error {
	if _, err := c.commitTx.ExecContext(ctx); err != nil {
		c.abort(ctx)
		return err
	}
	return nil
}

// abort rolls the transaction back. Its error is not reported: the
// write's own error is the one to report, and when SQLite has undone the
// transaction already there is nothing left to roll back.
func (c *committer) abort(ctx context.Context) {
	c.rollback.ExecContext(ctx) //nolint:errcheck // see above
}
