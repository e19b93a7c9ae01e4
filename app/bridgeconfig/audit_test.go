package bridgeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAuditConfig(t *testing.T) {
	t.Setenv("TEST_AUDIT_KEY", "an-audit-key-of-24-chars")
	for _, tc := range []struct {
		name string
		yaml string
		keep time.Duration
		err  string
	}{
		{"defaults", "listen: 127.0.0.1:8377\n", 400 * 24 * time.Hour, ""},
		{"a retention and a key", "audit:\n  retention: 90d\n  key_env: TEST_AUDIT_KEY\n", 90 * 24 * time.Hour, ""},
		{"not a duration", "audit:\n  retention: forever\n", 0, `line 2: "forever" is not a duration`},
		{"shorter than the questions", "store:\n  retention: 30d\naudit:\n  retention: 7d\n", 0, "audit.retention: 168h0m0s is shorter than a question may be kept, 888h0m0s"},
		{"an unknown key", "audit:\n  keep: 90d\n", 0, `unknown key "keep" in audit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "askbridge.yaml")
			if err := os.WriteFile(path, []byte(tc.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path)
			if err == nil {
				err = cfg.Finish()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.Audit.KeepFor(); got != tc.keep {
				t.Fatalf("audit retention %s, want %s", got, tc.keep)
			}
		})
	}
}
