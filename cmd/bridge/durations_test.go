package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/app/bridgeconfig"
)

// loadYAML loads and checks a configuration file with body, as serve and
// check-config do.
func loadYAML(t *testing.T, body string) (bridgeconfig.Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "askbridge.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := bridgeconfig.Load(p)
	if err != nil {
		return cfg, err
	}
	return cfg, cfg.Finish()
}

// TestConfigDurationsInDays: every duration in the file reads d and w.
func TestConfigDurationsInDays(t *testing.T) {
	cfg, err := loadYAML(t, "timeouts:\n  default: 7d\nroutes:\n  default: {targets: [cli], timeout: 1d12h}\nstore:\n  retention: 2w\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Duration(cfg.Timeouts.Default); got != 7*24*time.Hour {
		t.Errorf("timeouts.default = %v, want 168h", got)
	}
	if got := time.Duration(cfg.Routes["default"].Timeout); got != 36*time.Hour {
		t.Errorf("routes.default.timeout = %v, want 36h", got)
	}
	if got := time.Duration(cfg.Store.Retention); got != 14*24*time.Hour {
		t.Errorf("store.retention = %v, want 336h", got)
	}
	for body, want := range map[string]string{
		"timeouts:\n  default: 8d\n":   "timeouts.default: must be between 10s and 7d, got 192h0m0s",
		"timeouts:\n  default: 7x\n":   `line 2: "7x" is not a duration (use e.g. 30s, 30m, 2h, 7d)`,
		"store:\n  leader_lease: 1q\n": `line 2: "1q" is not a duration`,
	} {
		if _, err := loadYAML(t, body); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want …%s…", body, err, want)
		}
	}
}

// TestAskTimeoutInDays: `bridge ask --timeout 7d` asks with the maximum
// timeout instead of failing.
func TestAskTimeoutInDays(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	before := time.Now()
	r := runBridge(t, addr, "ask", "--pending", "--timeout", "7d", "Ship it?")
	if r.code != 0 {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	var out struct {
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("output %q: %v", r.stdout, err)
	}
	if left := out.ExpiresAt.Sub(before); left < 7*24*time.Hour-time.Minute || left > 7*24*time.Hour+time.Minute {
		t.Fatalf("expires %v after asking, want 7 days", left)
	}
	r = runBridge(t, addr, "ask", "--pending", "--timeout", "7x", "Ship it?")
	if r.code == 0 || !strings.Contains(r.stderr, `timeout: "7x" is not a duration (use e.g. 30s, 30m, 2h, 7d)`) {
		t.Fatalf("--timeout 7x: exit %d, %q", r.code, r.stderr)
	}
}
