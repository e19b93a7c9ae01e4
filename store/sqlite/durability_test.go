package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/store/sqlite"
)

// crashEnv names the database file the child process of
// TestKilledProcessLosesNothing writes before it kills itself.
const crashEnv = "ASKBRIDGE_SQLITE_CRASH_DB"

// TestMain lets the test binary double as the process that is killed.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashEnv); path != "" {
		os.Exit(crashChild(path))
	}
	os.Exit(m.Run())
}

// crashChild writes a pending question, a resolved one with its callback
// delivery and a posted copy, then dies with SIGKILL without closing.
func crashChild(path string) int {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	now := time.Now()
	pending := brokertest.NewQuestion("pppppp", "a1", now)
	done := brokertest.NewQuestion("dddddd", "a1", now)
	done.CallbackURL = "https://agent.example/cb"
	for _, q := range []*broker.Question{pending, done} {
		if _, _, err := s.Create(ctx, q, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := s.AddMessage(ctx, "pppppp", broker.MessageRef{Channel: "telegram", Chat: "1", MessageID: "9", PostedAt: now}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := s.Resolve(ctx, "dddddd", broker.Resolution{Status: broker.StatusDeclined, Reason: "no", ResolvedAt: now}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	syscall.Kill(os.Getpid(), syscall.SIGKILL) //nolint:errcheck // the process ends here
	return 1
}

func TestKilledProcessLosesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "askbridge.db")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v\n%s", err, out)
	}

	ctx := context.Background()
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open after kill: %v", err)
	}
	defer s.Close()
	q, err := s.Get(ctx, "pppppp")
	if err != nil || q.Status != broker.StatusPending {
		t.Fatalf("pending question after kill = %+v, %v; want it pending", q, err)
	}
	if id, err := s.LookupMessage(ctx, "telegram", "1", "9"); err != nil || id != "pppppp" {
		t.Fatalf("posted copy after kill = %q, %v", id, err)
	}
	due, err := s.Due(ctx, time.Now().Add(time.Hour), 10)
	if err != nil || len(due) != 1 || due[0] != "pppppp" {
		t.Fatalf("Due after kill = %v, %v; want the pending question's deadline to still fire", due, err)
	}
	d, err := s.Get(ctx, "dddddd")
	if err != nil || d.Status != broker.StatusDeclined || d.Reason != "no" {
		t.Fatalf("resolved question after kill = %+v, %v", d, err)
	}
	ds, err := s.ClaimDeliveries(ctx, time.Now(), 10, time.Minute)
	if err != nil || len(ds) != 1 || ds[0].QuestionID != "dddddd" {
		t.Fatalf("callback delivery after kill = %+v, %v; want it still queued", ds, err)
	}
}

// TestTwoStoresOneFile opens the same file twice, as two processes would,
// and races resolutions through both: still exactly one winner.
func TestTwoStoresOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "askbridge.db")
	var stores []*sqlite.Store
	for range 2 {
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer s.Close()
		stores = append(stores, s)
	}
	now := time.Now()
	for round := range 20 {
		q := brokertest.NewQuestion(broker.NewID(), "a1", now)
		if _, _, err := stores[round%2].Create(ctx, q, nil); err != nil {
			t.Fatalf("Create: %v", err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := 0
		for i := range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := stores[i%2].Resolve(ctx, q.ID, broker.Resolution{Status: broker.StatusCancelled, Reason: fmt.Sprint(i), ResolvedAt: now})
				switch {
				case err == nil:
					mu.Lock()
					wins++
					mu.Unlock()
				case !errors.Is(err, broker.ErrClosed):
					t.Errorf("Resolve: %v", err)
				}
			}()
		}
		wg.Wait()
		if wins != 1 {
			t.Fatalf("round %d: %d resolutions won across two stores, want 1", round, wins)
		}
	}
	evs, err := stores[0].Events(ctx, "", 0, 0)
	if err != nil || len(evs) != 20 {
		t.Fatalf("Events = %d, %v; want 20, one per question", len(evs), err)
	}
}
