package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// TestSharedCommitsKeepWritesApart sends writes that succeed and writes
// that fail at the same moment, so that they share transactions: every
// caller gets its own outcome, and only the successful writes are stored.
func TestSharedCommitsKeepWritesApart(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	taken := brokertest.NewQuestion(broker.NewID(), "a1", now)
	if _, _, err := s.Create(ctx, taken, nil); err != nil {
		t.Fatal(err)
	}
	const n = 60
	fresh := make([]string, n)
	errs := make([]error, 2*n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		fresh[i] = fmt.Sprintf("f%05d", i)
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			q := brokertest.NewQuestion(fresh[i], "a1", now)
			q.CallbackURL = "https://agent.example/cb"
			if _, _, err := s.Create(ctx, q, nil); err != nil {
				errs[2*i] = err
				return
			}
			_, errs[2*i] = s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now})
		}()
		go func() {
			defer wg.Done()
			<-start
			dup := brokertest.NewQuestion(taken.ID, "a2", now)
			_, _, errs[2*i+1] = s.Create(ctx, dup, nil)
		}()
	}
	close(start)
	wg.Wait()
	for i := range n {
		if errs[2*i] != nil {
			t.Fatalf("write %d: %v", i, errs[2*i])
		}
		if !errors.Is(errs[2*i+1], broker.ErrIDTaken) {
			t.Fatalf("duplicate create %d: err = %v, want ErrIDTaken", i, errs[2*i+1])
		}
	}
	for _, id := range fresh {
		q, err := s.Get(ctx, id)
		if err != nil || q.Status != broker.StatusAnswered {
			t.Fatalf("Get(%s) = %+v, %v; want it answered", id, q, err)
		}
	}
	if got, err := s.Get(ctx, taken.ID); err != nil || got.Agent != "a1" {
		t.Fatalf("the question whose id was taken = %+v, %v; want it unchanged", got, err)
	}
	evs, err := s.Events(ctx, "", 0, 0)
	if err != nil || len(evs) != n {
		t.Fatalf("Events = %d, %v; want %d", len(evs), err, n)
	}
	ds, err := s.ClaimDeliveries(ctx, now, 0, time.Minute)
	if err != nil || len(ds) != n {
		t.Fatalf("deliveries = %d, %v; want %d", len(ds), err, n)
	}
}

func TestCancelledWriteChangesNothing(t *testing.T) {
	s := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
	if _, _, err := s.Create(ctx, q, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Create with a cancelled context: err = %v, want context.Canceled", err)
	}
	if _, err := s.Get(context.Background(), q.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("Get after a cancelled Create: err = %v, want ErrNotFound", err)
	}
}

// TestFailedTransactionsLeaveNothingOpen fails a lone write after it has
// written, and a commit (a deferred foreign key that does not hold): each
// fails alone, changes nothing, and the next write on the committer's
// connection begins and commits as usual.
func TestFailedTransactionsLeaveNothingOpen(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	count := func() int {
		t.Helper()
		var n int
		if err := sqlite.ReaderDB(s).QueryRowContext(ctx, `SELECT count(*) FROM web_sessions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := func(digest string) string {
		return "INSERT INTO web_sessions (digest, expires_at) VALUES ('" + digest + "', 0)"
	}
	own := errors.New("the write's own failure")
	if err := sqlite.WriteSQL(ctx, s, own, insert("a")); !errors.Is(err, own) {
		t.Fatalf("failing write: err = %v, want its own error", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("after a failed write: %d sessions stored, want 0", n)
	}
	err := sqlite.WriteSQL(ctx, s, nil, `PRAGMA defer_foreign_keys = ON`, insert("b"),
		`INSERT INTO attachments (question_id, n, name, type, size) VALUES ('no-such-question', 1, 'f', 'text/plain', 0)`)
	if err == nil || !strings.Contains(err.Error(), "FOREIGN KEY") {
		t.Fatalf("commit breaking a deferred foreign key: err = %v, want the constraint's error", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("after a failed commit: %d sessions stored, want 0", n)
	}
	if err := sqlite.WriteSQL(ctx, s, nil, insert("c")); err != nil {
		t.Fatalf("write after the failures: %v", err)
	}
	q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatalf("Create after the failures: %v", err)
	}
	if n := count(); n != 1 {
		t.Fatalf("after the last write: %d sessions stored, want 1", n)
	}
}
