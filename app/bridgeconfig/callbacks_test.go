package bridgeconfig

import (
	"testing"
	"time"
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
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := cfg.Callbacks.Config()
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
