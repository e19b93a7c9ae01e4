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
		{"quorum above responders", "quorum: 3\n    responders: [\"person:ana\", \"person:bo\"]", "routes.default.quorum: 3 is more than the 2 people the responders name"},
		{"quorum of accounts linked to nobody", "quorum: 2\n    responders: [zed, \"web:yan\"]", "routes.default.quorum: 2 is more than the 0 people the responders name"},
		{"quorum of one person's accounts", "quorum: 2\n    responders: [\"person:ana\", \"web:ana\"]", "routes.default.quorum: 2 is more than the 1 people the responders name"},
		{"unknown person", "responders: [\"person:zed\"]", `routes.default.responders[0]: "person:zed" names no person listed under people`},
		{"unknown group", "responders: [\"group:ops\"]", `routes.default.responders[0]: "group:ops" names no group listed under groups`},
		{"quorum below one", "quorum: -1\n    responders: [ana, bo]", "routes.default.quorum: -1 is less than 1"},
		{"snooze without max", "snooze: {by: 30m}", "routes.default.snooze.max: 0 is less than 1"},
		{"snooze too short", "snooze: {by: 10s, max: 1}", "routes.default.snooze.by: 10s is shorter than 1m"},
		{"timeout_max below timeout", "timeout: 1h\n    timeout_max: 30m", "routes.default.timeout_max: 30m0s is shorter than the route's timeout of 1h0m0s"},
		{"fine", "quorum: 2\n    responders: [\"group:sre\"]\n    forbid_requester: true\n    snooze: {by: 30m, max: 2}\n    timeout_max: 2h", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			body := "agents:\n  - name: a\n    key_env: POLICY_TEST_KEY\n    on_behalf_of: [\"web:ana\"]\n" +
				"people:\n  - {id: ana, accounts: [\"cli:ana\"]}\n  - {id: bo}\n  - {id: cy}\ngroups:\n  sre: [ana, bo, cy]\n" +
				"routes:\n  default:\n    targets: [web]\n    " + tc.route + "\n"
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

// Every mistake in people and groups is reported in one run, naming its
// entry, and nothing starts.
func TestPeopleConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	body := `agents:
  - name: a
    key_env: POLICY_TEST_KEY
    on_behalf_of: ["person:zed", "group:sre"]
people:
  - {id: ana, accounts: ["slack:U1", "telegram:42"]}
  - {id: bo, accounts: ["slack:U1"]}
  - {id: "Cy Li"}
  - {id: ana}
groups:
  sre: [ana, zed]
  empty: []
  loop: [ana, loop]
routes:
  default:
    targets: [web]
`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POLICY_TEST_KEY", "k")
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Finish()
	for _, want := range []string{
		`people[1].accounts: "slack:U1" is listed under both "ana" and "bo"`,
		`people[2].id: "Cy Li" is not an id`,
		`people[3].id: "ana" is listed twice`,
		`groups.sre[1]: "zed" is not a person listed under people`,
		`groups.empty: the group is empty`,
		`groups.loop[1]: the group names itself`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("config with bad people: %v\nwant %q", err, want)
		}
	}

	good := strings.Replace(body, `  - {id: bo, accounts: ["slack:U1"]}
  - {id: "Cy Li"}
  - {id: ana}`, `  - {id: bo, accounts: ["slack:U2"]}`, 1)
	good = strings.Replace(good, "  sre: [ana, zed]\n  empty: []\n  loop: [ana, loop]\n", "  sre: [ana, bo]\n", 1)
	if err := os.WriteFile(path, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	err = cfg.Finish()
	for _, want := range []string{
		`agents[0].on_behalf_of[0]: "person:zed" names no person listed under people`,
		`agents[0].on_behalf_of[1]: "group:sre" names a group`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("on_behalf_of: %v\nwant %q", err, want)
		}
	}
}

// The worked example of docs/policies.md is a configuration that passes
// check-config, as the page says.
func TestPoliciesWorkedExample(t *testing.T) {
	page, err := os.ReadFile("../../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(page), "## The worked example")
	_, rest, ok2 := strings.Cut(rest, "```yaml\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/policies.md has no yaml block under \"The worked example\"")
	}
	path := filepath.Join(t.TempDir(), "policies.yaml")
	if err := os.WriteFile(path, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, env := range []string{"ASKBRIDGE_AGENT_KEY_DEPLOYER", "ASKBRIDGE_SLACK_BOT_TOKEN", "ASKBRIDGE_SLACK_APP_TOKEN", "ASKBRIDGE_TELEGRAM_TOKEN"} {
		t.Setenv(env, "test-value-of-"+env)
	}
	cfg, err := Load(path)
	if err == nil {
		err = cfg.Finish()
	}
	if err != nil {
		t.Fatalf("the worked example of docs/policies.md does not pass check-config: %v", err)
	}
	prod := cfg.Routes.Broker()["prod"]
	if prod.Policy.Quorum != 2 || !prod.Policy.ForbidRequester || cfg.Directory.Person("ana") == nil {
		t.Fatalf("the worked example reads as %+v", prod.Policy)
	}
}
