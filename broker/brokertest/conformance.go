package brokertest

import (
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// TestStore runs the store conformance suite: every promise of the
// broker.Store contract, as subtests, each on a fresh store from open.
// open must return an empty store and arrange its own clean-up (t.Cleanup);
// the suite may Close the store itself, so Close must tolerate a second call.
// Two roles of the contract have suites of their own, which every store
// runs as well: TestAttachments, and TestSessions (which needs two handles
// on one store).
//
// Both store/sqlite and store/redis run it:
//
//	func TestConformance(t *testing.T) {
//		brokertest.TestStore(t, func(t *testing.T) broker.Store { return openTemp(t) })
//	}
func TestStore(t *testing.T, open func(t *testing.T) broker.Store) {
	t.Helper()
	groups := []struct {
		name  string
		tests []storeTest
	}{
		{"Create", createTests},
		{"Resolve", resolveTests},
		{"Progress", progressTests},
		{"Messages", messageTests},
		{"List", listTests},
		{"Schedule", scheduleTests},
		{"Events", eventTests},
		{"Outbox", outboxTests},
		{"PlatformOutbox", platformOutboxTests},
		{"Watch", watchTests},
		{"Purge", purgeTests},
		{"Limits", limitTests},
		{"Health", healthTests},
		{"Policy", policyTests},
		{"Audit", auditTests},
		{"Extended", extendedTests},
		{"Escalation", escalationTests},
		{"People", peopleTests},
		{"Replay", replayTests},
		{"Rules", ruleTests},
		{"Conversations", conversationTests},
		{"Inbox", inboxTests},
		{"Fields", fieldTests},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			for _, tc := range g.tests {
				t.Run(tc.name, func(t *testing.T) {
					tc.run(t, open(t))
				})
			}
		})
	}
}

// storeTest is one conformance test; it gets a fresh, empty store.
type storeTest struct {
	name string
	run  func(t *testing.T, s broker.Store)
}
