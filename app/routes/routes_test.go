package routes

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/config"
)

// Validate reports every problem of the section, each with its key, and
// Broker carries targets, timeouts and policies to the broker's routes.
func TestValidateAndBroker(t *testing.T) {
	channels := map[string]bool{"cli": true, "web": true}
	c := Config{
		"ops": {Targets: []string{"slack:C1", "web"}, Timeout: config.Duration(time.Hour)},
		"dev": {Targets: []string{"cli"}, Policy: Policy{Escalate: []Escalate{{After: "50%", Route: "nowhere"}}}},
	}
	err := c.Validate(channels, 30*time.Minute, nil)
	if err == nil {
		t.Fatal("a section without a default route, with an unknown channel and escalation target, passed")
	}
	for _, want := range []string{
		`routes: a route named "default" is required`,
		`routes.ops.targets[0]: channel "slack" is not configured (configured: cli, web)`,
		`routes.dev.escalate`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v\nwant it to say %q", err, want)
		}
	}

	ok := Config{"default": {Targets: []string{"web", "cli:ana"}, Timeout: config.Duration(time.Hour),
		Policy: Policy{Snooze: &Snooze{By: config.Duration(10 * time.Minute), Max: 2}}}}
	if err := ok.Validate(channels, 30*time.Minute, nil); err != nil {
		t.Fatalf("a good section refused: %v", err)
	}
	r := ok.Broker()["default"]
	if len(r.Targets) != 2 || r.Targets[1].Channel != "cli" || r.Targets[1].Chat != "ana" || r.Timeout != time.Hour ||
		r.Policy.Snooze == nil || r.Policy.Snooze.Max != 2 {
		t.Fatalf("broker route = %+v", r)
	}
}
