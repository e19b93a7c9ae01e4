package channeltest

import (
	"context"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
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

// WaitCopy waits until the broker has recorded the copy of question id at
// target and returns it. A platform shows a posted message before the
// bridge has its answer and records the copy; a person replying to it in
// between would reply to a message the bridge does not know yet, which
// no person can do that fast. Tests act on a copy once it is recorded.
func WaitCopy(t testing.TB, st broker.Store, id string, target broker.Target) broker.MessageRef {
	t.Helper()
	var ref broker.MessageRef
	Eventually(t, "the copy of "+id+" at "+target.String()+" recorded", func() bool {
		refs, err := st.Messages(context.Background(), id)
		if err != nil {
			return false
		}
		for _, m := range refs {
			if m.Target() == target {
				ref = m
				return true
			}
		}
		return false
	})
	return ref
}
