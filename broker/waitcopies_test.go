package broker_test

import (
	"testing"

	"github.com/askbridge/askbridge/broker/brokertest"
)

// waitCopies waits until the copies of id are in the states want
// (brokertest.WaitCopies).
func waitCopies(t *testing.T, e *env, id string, want ...string) {
	t.Helper()
	brokertest.WaitCopies(t, e.b, id, want...)
}
