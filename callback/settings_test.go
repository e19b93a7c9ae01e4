package callback_test

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/callback"
	"github.com/askbridge/askbridge/internal/config"
)

// Every problem of the callbacks section names its key.
func TestSettingsValidate(t *testing.T) {
	t.Setenv("CB_SET", "x")
	tests := []struct {
		name string
		cfg  callback.Settings
		says string
	}{
		{"bad allow entry", callback.Settings{Allow: []string{"ftp://x/"}}, "callbacks.allow[0]"},
		{"bad range", callback.Settings{Allow: []string{"10.1.2.3/24"}}, `callbacks.allow[0]: "10.1.2.3/24" has address bits beyond its /24 prefix: write 10.1.2.0/24`},
		{"internal address without its range", callback.Settings{Allow: []string{"http://127.0.0.1:9000/"}}, `add "127.0.0.1/32"`},
		{"unset default secret", callback.Settings{SecretEnv: "CB_NOT_SET_ANYWHERE"}, "callbacks.secret_env: environment variable CB_NOT_SET_ANYWHERE is not set"},
		{"secret without agent", callback.Settings{Secrets: []callback.AgentSecret{{SecretEnv: "CB_SET"}}}, "callbacks.secrets[0].agent"},
		{"secret without env", callback.Settings{Secrets: []callback.AgentSecret{{Agent: "a"}}}, "callbacks.secrets[0].secret_env"},
		{"secret env unset", callback.Settings{Secrets: []callback.AgentSecret{{Agent: "a", SecretEnv: "CB_NOT_SET_ANYWHERE"}}}, "CB_NOT_SET_ANYWHERE is not set"},
		{"agent twice", callback.Settings{Secrets: []callback.AgentSecret{{Agent: "a", SecretEnv: "CB_SET"}, {Agent: "a", SecretEnv: "CB_SET"}}}, `callbacks.secrets[1].agent: "a" appears twice`},
		{"cap below base", callback.Settings{BaseBackoff: config.Duration(time.Minute), MaxBackoff: config.Duration(time.Second)}, "backoff"},
		{"negative concurrency", callback.Settings{Concurrency: -1}, "callbacks.concurrency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Validate() = %v, want an error saying %q", err, tt.says)
			}
		})
	}
	if err := (callback.Settings{}).Validate(); err != nil {
		t.Errorf("the empty section is valid (no callbacks, no secret): %v", err)
	}
}
