package channeltest

import (
	"testing"
	"time"
)

// WaitLimit is how long Eventually waits before it fails the test. It is
// generous: it bounds a hang, it does not measure speed.
const WaitLimit = 10 * time.Second

// Eventually waits until cond holds and fails the test, saying what never
// happened, when it does not within WaitLimit. It is the one way the
// channel tests wait for something the platform or the broker does in the
// background.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Within(WaitLimit, cond) {
		t.Fatalf("%s never happened", what)
	}
}

// Within reports whether cond holds before d has passed, checking often.
func Within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}
