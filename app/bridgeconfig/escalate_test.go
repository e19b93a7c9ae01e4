package bridgeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/api"
)

// loadPolicyConfig reads a configuration of agent a (on behalf of
// onBehalf) and routes, and finishes it.
func loadPolicyConfig(t *testing.T, onBehalf, routes string) (*Config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.yaml")
	body := "agents:\n  - name: a\n    key_env: POLICY_TEST_KEY\n    on_behalf_of: " + onBehalf + "\nroutes:\n" + routes
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POLICY_TEST_KEY", "k")
	cfg, err := Load(path)
	if err == nil {
		err = cfg.Finish()
	}
	return &cfg, err
}

func TestEscalateConfig(t *testing.T) {
	const oncall = "  oncall:\n    targets: [web]\n    responders: [cy]\n"
	for _, tc := range []struct {
		name, escalate, want string
	}{
		{"unknown route", `[{after: "50%", route: pager}]`, `routes.default.escalate[0].route: no route named "pager" is configured (routes: default, oncall)`},
		{"missing route", `[{after: "50%"}]`, "routes.default.escalate[0].route: missing: name the route to escalate to"},
		{"itself", `[{after: "50%", route: default}]`, `routes.default.escalate[0].route: "default" is this route itself`},
		{"bad share", `[{after: "150%", route: oncall}]`, `routes.default.escalate[0].after: "150%" is not a share of the timeout strictly between 0% and 100%`},
		{"not a duration", `[{after: "soon", route: oncall}]`, `routes.default.escalate[0].after: "soon" is neither a share of the timeout ("50%") nor a duration ("15m")`},
		{"after the timeout", `[{after: "2h", route: oncall}]`, "routes.default.escalate[0].after: 2h is not before the route's timeout of 1 h"},
		{"not increasing", `[{after: "30m", route: oncall}, {after: "50%", route: oncall}]`, "routes.default.escalate[1].after: 50% is not after the step before it"},
		{"fine", `[{after: "15m", route: oncall}, {after: "75%", route: oncall}]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadPolicyConfig(t, `["web:ana"]`, "  default:\n    targets: [web]\n    timeout: 1h\n    escalate: "+tc.escalate+"\n"+oncall)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("config refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			case tc.want == "":
				steps := cfg.Routes.Broker()["default"].Policy.Escalate
				if len(steps) != 2 || steps[0].After != "15m" || steps[0].Route != "oncall" || steps[1].After != "75%" {
					t.Fatalf("escalation steps = %+v", steps)
				}
			}
		})
	}
}

func TestOnBehalfOfConfig(t *testing.T) {
	for _, tc := range []struct {
		name, entries, want string
	}{
		{"no channel", `["U123"]`, `agents[0].on_behalf_of[0]: "U123" is not "channel:user-id"`},
		{"empty user", `["web:"]`, `agents[0].on_behalf_of[0]: "web:" is not "channel:user-id"`},
		{"a role", `["web:role:sre"]`, `agents[0].on_behalf_of[0]: "web:role:sre" is not "channel:user-id": name one person`},
		{"unknown channel", `["web:ana", "matrix:@bo"]`, `agents[0].on_behalf_of[1]: channel "matrix" is not configured (configured: cli, web)`},
		{"fine", `["web:ana"]`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := loadPolicyConfig(t, tc.entries, "  default:\n    targets: [web]\n    timeout: 1h\n")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("config refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			case tc.want == "" && api.OnBehalfOf(cfg.Agents)["a"][0] != "web:ana":
				t.Fatalf("on behalf of = %v", api.OnBehalfOf(cfg.Agents))
			}
		})
	}
}
