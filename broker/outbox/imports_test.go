package outbox_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The broker reaches the outbox only through broker.Deliverer: neither it
// nor anything it imports imports this package.
func TestBrokerDoesNotImportTheOutbox(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	const broker, outbox = "github.com/askbridge/askbridge/broker", "github.com/askbridge/askbridge/broker/outbox"
	out, err := exec.Command(gobin, "list", "-deps", broker).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", broker, err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != broker {
		t.Fatalf("go list -deps %s listed %q, not the broker last", broker, deps)
	}
	for _, d := range deps {
		if d == outbox || strings.HasPrefix(d, outbox+"/") {
			t.Errorf("the broker depends on %s: it must reach the outbox only through broker.Deliverer", d)
		}
	}
}
