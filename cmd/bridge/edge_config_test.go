package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// TestServerHostsConfig checks server.public_url and server.allowed_hosts
// as a person writes them: good values pass check-config, each bad one is
// refused by check-config and by serve with the key (and index) named.
func TestServerHostsConfig(t *testing.T) {
	t.Setenv("ASKBRIDGE_TEST_AGENT_KEY", "agent-key-for-the-hosts-test")
	const agents = "agents:\n  - name: claude\n    key_env: ASKBRIDGE_TEST_AGENT_KEY\n"
	tests := []struct {
		name string
		yaml string
		want string // "" means accepted
	}{
		{name: "unset", yaml: "listen: 127.0.0.1:8377\n"},
		{name: "public url with keys", yaml: agents + "server:\n  public_url: https://bridge.example.com\n"},
		{name: "allowed hosts", yaml: "server:\n  allowed_hosts: [bridge.lan, 10.0.0.2, \"2001:db8::2\", \"[2001:db8::3]\"]\n"},
		{name: "public url without keys", yaml: "server:\n  public_url: https://bridge.example.com\n",
			want: "server.public_url: set to https://bridge.example.com, but no agent keys are configured"},
		{name: "public url without scheme", yaml: agents + "server:\n  public_url: bridge.example.com\n",
			want: `server.public_url: "bridge.example.com" must be an absolute URL starting with https://`},
		{name: "public url without host", yaml: agents + "server:\n  public_url: \"https:///askbridge\"\n",
			want: `server.public_url: "https:///askbridge" has no host`},
		{name: "allowed host with port", yaml: "server:\n  allowed_hosts: [bridge.lan, \"bridge.lan:8377\"]\n",
			want: `server.allowed_hosts[1]: "bridge.lan:8377" has a port`},
		{name: "allowed host with scheme", yaml: "server:\n  allowed_hosts: [\"http://bridge.lan\"]\n",
			want: `server.allowed_hosts[0]: "http://bridge.lan" has a scheme`},
		{name: "allowed host with path", yaml: "server:\n  allowed_hosts: [ok.lan, ok2.lan, bridge.lan/inbox]\n",
			want: `server.allowed_hosts[2]: "bridge.lan/inbox" is not a bare host`},
		{name: "allowed host empty", yaml: "server:\n  allowed_hosts: [\"\"]\n",
			want: `server.allowed_hosts[0]: must not be empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bridge.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			code := run([]string{"check-config", "--config", path}, nil, io.Discard, &stderr)
			if tt.want == "" {
				if code != cmdline.ExitOK {
					t.Fatalf("check-config exit %d: %s", code, stderr.String())
				}
				return
			}
			if code != cmdline.ExitBadInput || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("check-config exit %d, said %q; want exit %d and %q", code, stderr.String(), cmdline.ExitBadInput, tt.want)
			}
			// serve refuses to start with the same words, before listening.
			stderr.Reset()
			code = run([]string{"serve", "--config", path, "--listen", "127.0.0.1:0", "--data-dir", t.TempDir()}, nil, io.Discard, &stderr)
			if code != cmdline.ExitBadInput || !strings.Contains(stderr.String(), tt.want) {
				t.Fatalf("serve exit %d, said %q; want exit %d and %q", code, stderr.String(), cmdline.ExitBadInput, tt.want)
			}
		})
	}
}
