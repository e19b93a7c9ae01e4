package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// openTemp opens a store in a fresh file that is closed after the test.
func openTemp(t testing.TB) *sqlite.Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	brokertest.TestStore(t, func(t *testing.T) broker.Store { return openTemp(t) })
}

func TestReopenKeepsEverything(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "dir", "askbridge.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	pending := brokertest.FullQuestion(broker.NewID(), "a1", now)
	done := brokertest.NewQuestion(broker.NewID(), "a1", now)
	done.CallbackURL = "https://agent.example/cb"
	for _, q := range []*broker.Question{pending, done} {
		if _, _, err := s.Create(ctx, q, nil); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	ref := broker.MessageRef{Channel: "telegram", Chat: "-100123", MessageID: "77", PostedAt: now}
	if err := s.AddMessage(ctx, pending.ID, ref); err != nil {
		t.Fatalf("AddMessage: %v", err)
	}
	if _, err := s.SaveProgress(ctx, pending.ID, 0, broker.Answer{Selected: []string{"SQLite"}}); err != nil {
		t.Fatalf("SaveProgress: %v", err)
	}
	resolved, err := s.Resolve(ctx, done.ID, broker.Resolution{Status: broker.StatusAnswered, ResolvedAt: now,
		Answers: map[string]broker.Answer{"Which database?": {Selected: []string{"Postgres"}}}})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	before, err := s.Get(ctx, pending.ID)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	s, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	got, err := s.Get(ctx, pending.ID)
	if err != nil {
		t.Fatalf("Get after reopen: %v", err)
	}
	if !sameJSON(got, before) {
		t.Fatalf("pending question after reopen = %+v, want %+v", got, before)
	}
	if got.Progress[0] == nil || got.Progress[0].Selected[0] != "SQLite" {
		t.Fatalf("progress after reopen = %+v, want SQLite for prompt 1", got.Progress)
	}
	due, err := s.Due(ctx, now.Add(3*time.Hour), 10)
	if err != nil || len(due) != 1 || due[0] != pending.ID {
		t.Fatalf("Due after reopen = %v, %v; want [%s]: the deadline must still fire", due, err, pending.ID)
	}
	id, err := s.LookupMessage(ctx, ref.Channel, ref.Chat, ref.MessageID)
	if err != nil || id != pending.ID {
		t.Fatalf("LookupMessage after reopen = %q, %v; want %s", id, err, pending.ID)
	}
	if got, err := s.Get(ctx, done.ID); err != nil || !sameJSON(got, resolved) {
		t.Fatalf("resolved question after reopen = %+v, %v; want %+v", got, err, resolved)
	}
	ds, err := s.ClaimDeliveries(ctx, now, 10, time.Minute)
	if err != nil || len(ds) != 1 || ds[0].QuestionID != done.ID {
		t.Fatalf("ClaimDeliveries after reopen = %+v, %v; want the delivery of %s", ds, err, done.ID)
	}
	evs, err := s.Events(ctx, "", 0, 10)
	if err != nil || len(evs) != 1 || evs[0].QuestionID != done.ID {
		t.Fatalf("Events after reopen = %+v, %v; want the resolution of %s", evs, err, done.ID)
	}
	// Sequence numbers continue after a reopen.
	if _, err := s.Resolve(ctx, pending.ID, broker.Resolution{Status: broker.StatusCancelled, ResolvedAt: now}); err != nil {
		t.Fatalf("Resolve after reopen: %v", err)
	}
	evs2, err := s.Events(ctx, "", evs[0].Seq, 10)
	if err != nil || len(evs2) != 1 || evs2[0].Seq <= evs[0].Seq {
		t.Fatalf("Events after a resolution after reopen = %+v, %v; want one with seq > %d", evs2, err, evs[0].Seq)
	}
}

func TestOpenBadPath(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("this is not a database\n", 400)), 0o600); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, want string
	}{
		{"Empty", "", "empty path"},
		{"NotADatabase", garbage, "not a usable askbridge database"},
		{"ParentIsAFile", filepath.Join(notDir, "askbridge.db"), "create directory"},
		{"Directory", dir, "is a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := sqlite.Open(context.Background(), c.path)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded, want an error", c.path)
			}
			if !strings.Contains(err.Error(), c.path) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Open(%q) error = %q, want it to name the path and say %q", c.path, err, c.want)
			}
		})
	}
}

func TestClosedIsUnavailable(t *testing.T) {
	s := openTemp(t)
	s.Close()
	err := s.Ping(context.Background())
	if !errors.Is(err, broker.ErrUnavailable) {
		t.Fatalf("Ping after Close = %v, want ErrUnavailable", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close = %v, want nil", err)
	}
}

func TestNewFileIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "askbridge.db")
	s, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Fatalf("new database file has mode %v, want 0600: it holds questions and answers", perm)
	}
}

// TestGetHonoursCancelledContext: Get reads without the caller's
// cancellation once started, but a context cancelled before is refused
// with its error, as every other call.
func TestGetHonoursCancelledContext(t *testing.T) {
	s := openTemp(t)
	q := brokertest.NewQuestion(broker.NewID(), "a1", time.Now())
	if _, _, err := s.Create(context.Background(), q, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if got, err := s.Get(ctx, q.ID); err != nil || got.ID != q.ID {
		t.Fatalf("Get = %v, %v; want question %s", got, err, q.ID)
	}
	cancel()
	if got, err := s.Get(ctx, q.ID); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with a cancelled context = %v, %v; want context.Canceled", got, err)
	}
}
