package timeouts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite/sqlitetest"
	"github.com/askbridge/askbridge/timeouts"
)

// Purge removes what was resolved before the retention, and keeps what
// was resolved since and every pending question, however old.
func TestPurgeKeepsPendingAndRecent(t *testing.T) {
	ctx := context.Background()
	b := sqlitetest.NewBroker(t)
	st := b.Store
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	old, recent, pending := brokertest.NewQuestion("aaaaaa", "a", now.Add(-10*24*time.Hour)), brokertest.NewQuestion("bbbbbb", "a", now.Add(-time.Hour)), brokertest.NewQuestion("cccccc", "a", now.Add(-30*24*time.Hour))
	for _, q := range []*broker.Question{old, recent, pending} {
		if _, _, err := st.Create(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Resolve(ctx, old.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(-9 * 24 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Resolve(ctx, recent.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	s := timeouts.New(b.Broker, st, timeouts.Options{})
	if n, err := s.Purge(ctx, now); err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want 1", n, err)
	}
	if _, err := st.Get(ctx, old.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("the old resolved question is still there: %v", err)
	}
	for _, id := range []string{recent.ID, pending.ID} {
		if _, err := st.Get(ctx, id); err != nil {
			t.Fatalf("%s was purged: %v", id, err)
		}
	}
}

// A retention shorter than broker.MinRetention is raised to it: a question
// resolved moments ago stays readable, as the agent that asked it, and the
// bridge that serves it from memory, count on.
func TestPurgeKeepsAtLeastMinRetention(t *testing.T) {
	ctx := context.Background()
	b := sqlitetest.NewBroker(t)
	st := b.Store
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	recent, older := brokertest.NewQuestion("dddddd", "a", now.Add(-time.Hour)), brokertest.NewQuestion("eeeeee", "a", now.Add(-time.Hour))
	for q, at := range map[*broker.Question]time.Time{recent: now.Add(-broker.MinRetention + time.Second), older: now.Add(-broker.MinRetention - time.Second)} {
		if _, _, err := st.Create(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	s := timeouts.New(b.Broker, st, timeouts.Options{Retention: time.Second})
	if n, err := s.Purge(ctx, now); err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want 1", n, err)
	}
	if _, err := st.Get(ctx, recent.ID); err != nil {
		t.Fatalf("a question resolved %s ago was purged: %v", broker.MinRetention-time.Second, err)
	}
	if _, err := st.Get(ctx, older.ID); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("a question resolved %s ago is still there: %v", broker.MinRetention+time.Second, err)
	}
}
