package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
	_ "modernc.org/sqlite"
)

// TestFeedOverflow checks that a subscriber that does not read never
// blocks resolutions, and learns afterwards that it must re-check.
func TestFeedOverflow(t *testing.T) {
	s := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := s.Watch(ctx)
	now := time.Now()
	const n = 600 // more than a subscriber's queue and channel hold
	var last string
	for range n {
		q := brokertest.NewQuestion(broker.NewID(), "a1", now)
		if _, _, err := s.Create(ctx, q, nil); err != nil {
			t.Fatalf("Create: %v", err)
		}
		if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
			t.Fatalf("Resolve: %v", err)
		}
		last = q.ID
	}
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	sawRecheck, count := false, 0
	for !sawRecheck {
		select {
		case r := <-ch:
			count++
			if r.ID == "" {
				sawRecheck = true
			}
			if r.ID == last {
				t.Fatalf("the last id arrived after %d ids without a re-check hint, yet %d were resolved", count, n)
			}
		case <-timer.C:
			t.Fatalf("no re-check hint after %d ids of %d resolutions", count, n)
		}
	}
	if count >= n {
		t.Fatalf("got %d ids before the hint; the feed should have dropped some", count)
	}
}

func TestPurgeKeepsUndeliveredCallbacks(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	q := brokertest.NewQuestion(broker.NewID(), "a1", now.Add(-2*time.Hour))
	q.CallbackURL = "https://agent.example/cb"
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(-2 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Purge(ctx, now); err != nil || n != 0 {
		t.Fatalf("Purge with a callback still queued = %d, %v; want 0: the callback needs the result", n, err)
	}
	ds, err := s.Deliveries(ctx, q.ID)
	if err != nil || len(ds) != 1 {
		t.Fatalf("Deliveries = %+v, %v", ds, err)
	}
	ds[0].State = broker.DeliveryDelivered
	if err := s.UpdateDelivery(ctx, ds[0]); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Purge(ctx, now); err != nil || n != 1 {
		t.Fatalf("Purge after delivery = %d, %v; want 1", n, err)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	q := brokertest.NewQuestion(broker.NewID(), "a1", now)
	q.Reminders = []time.Time{now.Add(time.Minute)}
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	closed := brokertest.NewQuestion(broker.NewID(), "a1", now)
	closed.Status = broker.StatusAnswered
	noID := brokertest.NewQuestion("", "a1", now)
	cases := []struct {
		name string
		do   func() error
		want string
	}{
		{"CreateWithoutID", func() error { _, _, err := s.Create(ctx, noID, nil); return err }, "no id"},
		{"CreateClosed", func() error { _, _, err := s.Create(ctx, closed, nil); return err }, "must be pending"},
		{"ResolveToPending", func() error {
			_, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusPending, ResolvedAt: now})
			return err
		}, "not terminal"},
		{"ResolveWithoutTime", func() error {
			_, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled})
			return err
		}, "no time"},
		{"SetSelectionBadPrompt", func() error { _, err := s.SetSelection(ctx, q.ID, 3, []int{0}); return err }, "prompt 4 does not exist"},
		{"ClaimReminderBadNumber", func() error { _, err := s.ClaimReminder(ctx, q.ID, 2); return err }, "reminder 2 does not exist"},
		{"UpdateDeliveryBadState", func() error {
			return s.UpdateDelivery(ctx, broker.Delivery{ID: "d_x", State: "maybe"})
		}, `unknown state "maybe"`},
		{"ClaimDeliveriesNoHold", func() error { _, err := s.ClaimDeliveries(ctx, now, 1, 0); return err }, "hold must be positive"},
		{"AddMessageNoChannel", func() error { return s.AddMessage(ctx, q.ID, broker.MessageRef{Chat: "1"}) }, "no channel"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.do()
			if !errors.Is(err, broker.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrInvalid saying %q", err, c.want)
			}
		})
	}
	got, err := s.Get(ctx, q.ID)
	if err != nil || got.Status != broker.StatusPending || len(got.Selections) != 0 || got.RemindersSent != 0 {
		t.Fatalf("question after bad input = %+v, %v; want it unchanged", got, err)
	}
	if err := s.AddMessage(ctx, "zzzzzz", broker.MessageRef{Channel: "web"}); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("AddMessage to an unknown question = %v, want ErrNotFound", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = sqlite.Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "schema version 99 is newer") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open of a newer schema = %v, want a refusal naming the version and the path", err)
	}
}

// TestPurgeManyInChunks purges more questions than one chunk holds.
func TestPurgeManyInChunks(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	const n = 1234
	for i := range n {
		q := brokertest.NewQuestion(fmt.Sprintf("p%05d", i), "a1", now.Add(-3*time.Hour))
		if _, _, err := s.Create(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.AddMessage(ctx, q.ID, broker.MessageRef{Channel: "web", MessageID: q.ID, PostedAt: q.CreatedAt}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusTimedOut, ResolvedAt: now.Add(-2 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	old := brokertest.NewQuestion("keep00", "a1", now.Add(-3*time.Hour))
	if _, _, err := s.Create(ctx, old, nil); err != nil {
		t.Fatal(err)
	}
	got, err := s.Purge(ctx, now.Add(-time.Hour))
	if err != nil || got != n {
		t.Fatalf("Purge = %d, %v; want %d", got, err, n)
	}
	left, err := s.List(ctx, broker.Filter{})
	if err != nil || len(left) != 1 || left[0].ID != "keep00" {
		t.Fatalf("after Purge: %d questions left, %v; want only the pending one", len(left), err)
	}
	if evs, err := s.Events(ctx, "", 0, 0); err != nil || len(evs) != 0 {
		t.Fatalf("after Purge: %d events, %v; want none", len(evs), err)
	}
	if _, err := s.LookupMessage(ctx, "web", "", "p00007"); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("LookupMessage of a purged copy: %v, want ErrNotFound", err)
	}
}

// A deliverer's poll that finds nothing due does not need the file's
// write lock, so it neither waits for another writer (another process on
// the same file) nor holds up the outcomes that writer is recording.
func TestClaimWithNothingDueTakesNoWriteLock(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	now := time.Now()
	q := brokertest.NewQuestion(broker.NewID(), "a1", now)
	q.CallbackURL = "https://agent.example/cb"
	if _, _, err := s.Create(ctx, q, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
		t.Fatal(err)
	}
	if ds, err := s.ClaimDeliveries(ctx, now, 10, time.Minute); err != nil || len(ds) != 1 {
		t.Fatalf("first claim = %+v, %v; want the one delivery", ds, err)
	}

	other, err := sql.Open("sqlite", "file:"+s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK") //nolint:errcheck // the test is over

	pollCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if ds, err := s.ClaimDeliveries(pollCtx, now.Add(time.Second), 10, time.Minute); err != nil || len(ds) != 0 {
		t.Errorf("a poll while the delivery is held and another writer has the file = %+v, %v; want nothing and no error", ds, err)
	}
}
