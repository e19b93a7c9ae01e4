package bridgeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/api"
)

func TestRoutePolicyConfig(t *testing.T) {
	for _, tc := range []struct {
		name, route, want string
	}{
		{"quorum above responders", "quorum: 3\n    responders: [ana, bo]", "routes.default.quorum: 3 is more than the 2 responder(s) listed"},
		{"quorum below one", "quorum: -1\n    responders: [ana, bo]", "routes.default.quorum: -1 is less than 1"},
		{"snooze without max", "snooze: {by: 30m}", "routes.default.snooze.max: 0 is less than 1"},
		{"snooze too short", "snooze: {by: 10s, max: 1}", "routes.default.snooze.by: 10s is shorter than 1m"},
		{"timeout_max below timeout", "timeout: 1h\n    timeout_max: 30m", "routes.default.timeout_max: 30m0s is shorter than the route's timeout of 1h0m0s"},
		{"fine", "quorum: 2\n    responders: [ana, bo]\n    forbid_requester: true\n    snooze: {by: 30m, max: 2}\n    timeout_max: 2h", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			body := "agents:\n  - name: a\n    key_env: POLICY_TEST_KEY\n    on_behalf_of: [\"web:ana\"]\nroutes:\n  default:\n    targets: [web]\n    " + tc.route + "\n"
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("POLICY_TEST_KEY", "k")
			cfg, err := Load(path)
			if err == nil {
				err = cfg.Finish()
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("config refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			case tc.want == "":
				r := cfg.Routes.Broker()["default"]
				if r.Policy.Quorum != 2 || !r.Policy.ForbidRequester || r.Policy.Snooze == nil || r.Policy.Snooze.Max != 2 || api.OnBehalfOf(cfg.Agents)["a"][0] != "web:ana" {
					t.Fatalf("route policy = %+v, on behalf of %v", r.Policy, api.OnBehalfOf(cfg.Agents))
				}
			}
		})
	}
}
