package main

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/internal/config"
)

func TestCallbacksConfigKeys(t *testing.T) {
	t.Setenv("CB_DEFAULT", "d-secret")
	t.Setenv("CB_BUILD", "b-secret")
	path := writeConfig(t, t.TempDir(), `
callbacks:
  allow: ["https://hooks.example.com/askbridge/", "*.internal.example.com", "10.1.2.0/24"]
  secret_env: CB_DEFAULT
  secrets:
    - {agent: build-bot, secret_env: CB_BUILD}
  base_backoff: 2s
  max_backoff: 10m
  window: 12h
  timeout: 5s
  concurrency: 4
`)
	cfg, err := loadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := cfg.Callbacks.deliveryConfig()
	if err != nil {
		t.Fatal(err)
	}
	if dc.DefaultSecret != "d-secret" || dc.Secrets["build-bot"] != "b-secret" || dc.BaseBackoff != 2*time.Second ||
		dc.MaxBackoff != 10*time.Minute || dc.Window != 12*time.Hour || dc.Timeout != 5*time.Second || dc.Concurrency != 4 {
		t.Errorf("delivery config = %+v", dc)
	}
	if err := dc.Policy.Check("https://hooks.example.com/askbridge/x"); err != nil {
		t.Errorf("allowed URL refused: %v", err)
	}
	if err := dc.Policy.Check("https://a.internal.example.com/x"); err != nil {
		t.Errorf("allowed host refused: %v", err)
	}
	if err := dc.Policy.Check("http://10.1.2.7:8080/x"); err != nil {
		t.Errorf("address in an allowed range refused: %v", err)
	}
	if err := dc.Policy.Check("http://127.0.0.1:9/x"); err == nil {
		t.Error("loopback allowed although the list names no loopback range")
	}
}

func TestCallbacksConfigValidate(t *testing.T) {
	t.Setenv("CB_SET", "x")
	tests := []struct {
		name string
		cfg  CallbacksConfig
		says string
	}{
		{"bad allow entry", CallbacksConfig{Allow: []string{"ftp://x/"}}, "callbacks.allow[0]"},
		{"bad range", CallbacksConfig{Allow: []string{"10.1.2.3/24"}}, `callbacks.allow[0]: "10.1.2.3/24" has address bits beyond its /24 prefix: write 10.1.2.0/24`},
		{"internal address without its range", CallbacksConfig{Allow: []string{"http://127.0.0.1:9000/"}}, `add "127.0.0.1/32"`},
		{"unset default secret", CallbacksConfig{SecretEnv: "CB_NOT_SET_ANYWHERE"}, "callbacks.secret_env: environment variable CB_NOT_SET_ANYWHERE is not set"},
		{"secret without agent", CallbacksConfig{Secrets: []CallbackSecret{{SecretEnv: "CB_SET"}}}, "callbacks.secrets[0].agent"},
		{"secret without env", CallbacksConfig{Secrets: []CallbackSecret{{Agent: "a"}}}, "callbacks.secrets[0].secret_env"},
		{"secret env unset", CallbacksConfig{Secrets: []CallbackSecret{{Agent: "a", SecretEnv: "CB_NOT_SET_ANYWHERE"}}}, "CB_NOT_SET_ANYWHERE is not set"},
		{"agent twice", CallbacksConfig{Secrets: []CallbackSecret{{Agent: "a", SecretEnv: "CB_SET"}, {Agent: "a", SecretEnv: "CB_SET"}}}, `callbacks.secrets[1].agent: "a" appears twice`},
		{"cap below base", CallbacksConfig{BaseBackoff: config.Duration(time.Minute), MaxBackoff: config.Duration(time.Second)}, "backoff"},
		{"negative concurrency", CallbacksConfig{Concurrency: -1}, "callbacks.concurrency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.validate()
			if err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("validate() = %v, want an error saying %q", err, tt.says)
			}
		})
	}
	if err := (CallbacksConfig{}).validate(); err != nil {
		t.Errorf("the empty section is valid (no callbacks, no secret): %v", err)
	}
}
