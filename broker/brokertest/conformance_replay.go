package brokertest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var replayTests = []storeTest{
	{"FirstCallOnly", testReplayFirstCallOnly},
	{"ConcurrentCallsOneFirst", testReplayConcurrent},
	{"NewAgainAfterTTL", testReplayExpiry},
	{"BadInputRecordsNothing", testReplayBadInput},
	{"ClosedIsUnavailable", testReplayClosed},
}

// firstSeen calls FirstSeen and fails the test on an error.
func firstSeen(t *testing.T, s broker.ReplayGuard, key string, ttl time.Duration) bool {
	t.Helper()
	first, err := s.FirstSeen(context.Background(), key, ttl)
	if err != nil {
		t.Fatalf("FirstSeen(%q, %s): %v", key, ttl, err)
	}
	return first
}

func testReplayFirstCallOnly(t *testing.T, s broker.Store) {
	if !firstSeen(t, s, "slack:req:aa", time.Minute) {
		t.Fatal("a new key is not first seen")
	}
	for i := range 3 {
		if firstSeen(t, s, "slack:req:aa", time.Minute) {
			t.Fatalf("call %d with the same key is first seen again", i+2)
		}
	}
	if !firstSeen(t, s, "slack:req:ab", time.Minute) {
		t.Fatal("another key is taken for the first one")
	}
	if !firstSeen(t, s, "slack:REQ:aa", time.Minute) {
		t.Fatal("keys differing in case are taken for one")
	}
}

func testReplayConcurrent(t *testing.T, s broker.Store) {
	const n = 16
	var wg sync.WaitGroup
	results := make(chan bool, n)
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			first, err := s.FirstSeen(context.Background(), "slack:event:Ev01", time.Minute)
			if err != nil {
				errs <- err
				return
			}
			results <- first
		})
	}
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Fatalf("FirstSeen: %v", err)
	}
	firsts := 0
	for r := range results {
		if r {
			firsts++
		}
	}
	if firsts != 1 {
		t.Fatalf("%d of %d concurrent calls were first, want 1", firsts, n)
	}
}

func testReplayExpiry(t *testing.T, s broker.Store) {
	const ttl = 200 * time.Millisecond
	if !firstSeen(t, s, "k-expiring", ttl) || !firstSeen(t, s, "k-kept", time.Minute) {
		t.Fatal("new keys are not first seen")
	}
	deadline := time.Now().Add(storeWait)
	for !firstSeen(t, s, "k-expiring", ttl) {
		if time.Now().After(deadline) {
			t.Fatalf("a key remembered for %s is still known after %s", ttl, storeWait)
		}
		time.Sleep(ttl / 2)
	}
	if firstSeen(t, s, "k-expiring", ttl) {
		t.Fatal("a key seen again after its expiry is not remembered anew")
	}
	if firstSeen(t, s, "k-kept", time.Minute) {
		t.Fatal("a key with a longer ttl went with the expired one")
	}
	// Purge forgets nothing that has not expired.
	if _, err := s.Purge(context.Background(), time.Now()); err != nil {
		t.Fatalf("Purge: %v", err)
	}
	if firstSeen(t, s, "k-kept", time.Minute) {
		t.Fatal("Purge forgot a key that has not expired")
	}
}

func testReplayBadInput(t *testing.T, s broker.Store) {
	ctx := context.Background()
	long := strings.Repeat("k", broker.MaxReplayKey+1)
	for _, c := range []struct {
		name, key string
		ttl       time.Duration
		says      string
	}{
		{"empty key", "", time.Minute, "replay key: empty"},
		{"key too long", long, time.Minute, "replay key: 257 bytes, at most 256"},
		{"zero ttl", "k-bad", 0, "replay ttl: 0s is outside"},
		{"negative ttl", "k-bad", -time.Second, "replay ttl: -1s is outside"},
		{"ttl below a millisecond", "k-bad", time.Microsecond, "replay ttl: 1µs is outside"},
		{"ttl beyond a day", "k-bad", broker.MaxReplayTTL + time.Second, "replay ttl: 24h0m1s is outside 1ms–24h0m0s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, err := s.FirstSeen(ctx, c.key, c.ttl)
			if !errors.Is(err, broker.ErrInvalid) || !strings.Contains(err.Error(), c.says) || first {
				t.Fatalf("FirstSeen(%.20q, %s) = %v, %v; want an ErrInvalid saying %q", c.key, c.ttl, first, err, c.says)
			}
		})
	}
	// Nothing of the refused calls was recorded.
	if !firstSeen(t, s, "k-bad", time.Minute) {
		t.Fatal("a refused call recorded its key")
	}
	if !firstSeen(t, s, long[:broker.MaxReplayKey], time.Minute) {
		t.Fatal("a key of the longest length is not first seen")
	}
}

func testReplayClosed(t *testing.T, s broker.Store) {
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err := s.FirstSeen(context.Background(), "k-closed", time.Minute)
	wantErr(t, "FirstSeen after Close", err, broker.ErrUnavailable)
}
