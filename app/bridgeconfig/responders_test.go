package bridgeconfig

import (
	"strings"
	"testing"
)

// TestRouteRespondersAndRemindersConfig checks the rules of a question's
// responders and reminder points where a route or the bridge sets them,
// at startup, naming the key.
func TestRouteRespondersAndRemindersConfig(t *testing.T) {
	tests := []struct {
		name, yaml, want string // want "" when accepted
	}{
		{"responders on the route's channels", "routes:\n  default: {targets: [web, cli], responders: [\"cli:ana\", \"web:role:ops\", bo]}\n", ""},
		{"a responder on a channel the route does not post to", "routes:\n  default: {targets: [web, cli], responders: [\"cli:ana\", \"telegram:42\"]}\n",
			`routes.default.responders[1]: channel "telegram" is not among the route's targets (web, cli)`},
		{"a malformed responder", "routes:\n  default: {targets: [cli], responders: [\"x:y:z\"]}\n",
			`routes.default.responders[0]: "x:y:z" is not a responder entry`},
		{"a responder with an escape", "routes:\n  default: {targets: [cli], responders: [\"cli:a\\e[31mna\"]}\n",
			"routes.default.responders[0]: contains a control character (U+001B)"},
		{"six reminder points", "timeouts:\n  reminders: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]\n",
			"timeouts.reminders: at most 5 points, got 6"},
		{"reminders a minute apart with the default timeout", "timeouts:\n  default: 10m\n  reminders: [0.5, 0.6]\n", ""},
		{"reminders under a minute apart with the default timeout", "timeouts:\n  default: 5m\n  reminders: [0.5, 0.6]\n",
			"timeouts.reminders[1]: 0.6 is only 30 s after 0.5 with a timeout of 5 min"},
		{"a route's reminders under a minute apart with its timeout", "routes:\n  default: {targets: [cli], timeout: 1m, reminders: [0.5, 0.9]}\n",
			"routes.default.reminders[1]: 0.9 is only 24 s after 0.5 with a timeout of 1 min"},
		{"a route's reminders checked against the default timeout", "timeouts:\n  default: 2m\nroutes:\n  default: {targets: [cli], reminders: [0.25, 0.5]}\n",
			"routes.default.reminders[1]: 0.5 is only 30 s after 0.25 with a timeout of 2 min"},
		{"a short route timeout inheriting the default points", "routes:\n  default: {targets: [cli], timeout: 10s}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Load(writeConfig(t, t.TempDir(), tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.Finish()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)):
				t.Fatalf("err = %v\nwant %s…", err, tt.want)
			}
		})
	}
}
