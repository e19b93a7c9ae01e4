package bench

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestBridgeConfig(t *testing.T) {
	tests := []struct {
		name     string
		profile  Profile
		capacity bool
		extra    string
		// wantFile is "" when the bridge must run without a file.
		wantFile []string
		wantDesc string
	}{
		{"default", ProfileDefault, false, "", nil, "default (web and cli, info logs), no config file"},
		{"default with caps", ProfileDefault, true, "", []string{"max_connections: 1000000", "pending_per_agent: 1000000"}, "default (web and cli, info logs), caps lifted"},
		{"default with callbacks", ProfileDefault, false, "callbacks:\n  base_backoff: 200ms\n", []string{"base_backoff: 200ms"}, "default (web and cli, info logs), run-specific settings"},
		{"light", ProfileLight, false, "", []string{"level: warn", "disabled: true", "targets: [cli]"}, "light (cli only, web off, warn logs)"},
		{"light with caps", ProfileLight, true, "", []string{"level: warn", "pending_per_agent: 1000000"}, "light (cli only, web off, warn logs), caps lifted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, desc := bridgeConfig(tt.profile, tt.capacity, tt.extra)
			if desc != tt.wantDesc {
				t.Errorf("description %q, want %q", desc, tt.wantDesc)
			}
			if tt.wantFile == nil {
				if file != "" {
					t.Errorf("file %q, want none", file)
				}
				return
			}
			for _, w := range tt.wantFile {
				if !strings.Contains(file, w) {
					t.Errorf("file lacks %q:\n%s", w, file)
				}
			}
			if tt.profile == ProfileDefault && (strings.Contains(file, "web") || strings.Contains(file, "level")) {
				t.Errorf("the default profile changed channels or logs:\n%s", file)
			}
			var m map[string]any
			if err := yaml.Unmarshal([]byte(file), &m); err != nil {
				t.Errorf("not YAML: %v\n%s", err, file)
			}
		})
	}
}

func TestParseProfile(t *testing.T) {
	for _, s := range []string{"default", "light"} {
		if p, err := ParseProfile(s); err != nil || string(p) != s {
			t.Errorf("ParseProfile(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"", "Default", "heavy"} {
		if _, err := ParseProfile(s); err == nil || !strings.Contains(err.Error(), "use default") {
			t.Errorf("ParseProfile(%q) error = %v, want one naming the choices", s, err)
		}
	}
}

func TestWithoutConfigEnv(t *testing.T) {
	got := withoutConfigEnv([]string{"HOME=/h", "ASKBRIDGE_CONFIG=/etc/x.yaml", "ASKBRIDGE_CONFIGURED=1"})
	if strings.Join(got, " ") != "HOME=/h ASKBRIDGE_CONFIGURED=1" {
		t.Errorf("got %q", got)
	}
}
