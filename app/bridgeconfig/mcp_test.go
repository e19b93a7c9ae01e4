package bridgeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPConfig(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		enabled bool
		every   time.Duration
		err     string
	}{
		{"defaults", "listen: 127.0.0.1:8377\n", true, 0, ""},
		{"disabled", "mcp:\n  enabled: false\n", false, 0, ""},
		{"progress", "mcp:\n  progress_every: 15s\n", true, 15 * time.Second, ""},
		{"progress too often", "mcp:\n  progress_every: 1ms\n", true, 0, "line 2: mcp.progress_every: 1ms is outside 100ms–5m"},
		{"progress not a duration", "mcp:\n  progress_every: often\n", true, 0, `line 2: mcp.progress_every: "often" is not a duration`},
		{"unknown key", "mcp:\n  enable: false\n", true, 0, `unknown key "enable" in mcp (did you mean "enabled"?)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "askbridge.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			enabled := cfg.MCP.Enabled == nil || *cfg.MCP.Enabled
			if enabled != tc.enabled || time.Duration(cfg.MCP.ProgressEvery) != tc.every {
				t.Fatalf("enabled %v every %s, want %v %s", enabled, time.Duration(cfg.MCP.ProgressEvery), tc.enabled, tc.every)
			}
		})
	}
}
