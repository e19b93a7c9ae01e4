package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// TestChannelSecretsCheckedAlike: a secret a channel reads that serve
// refuses (a short web token, a short or malformed Telegram webhook
// secret, a Telegram token that cannot be one, a Slack secret of spaces)
// is refused by check-config too, with the same line and exit code, on a
// bridge reachable beyond loopback; good secrets pass check-config.
func TestChannelSecretsCheckedAlike(t *testing.T) {
	t.Setenv("ASKBRIDGE_TEST_AGENT_LONG", "agent-key-0123456789")
	t.Setenv("ASKBRIDGE_TEST_WEB_SHORT", "abc")
	t.Setenv("ASKBRIDGE_TEST_WEB_LONG", "web-token-0123456789")
	t.Setenv("ASKBRIDGE_TEST_TG_TOKEN", "123456:ABC-def_ghi")
	t.Setenv("ASKBRIDGE_TEST_TG_BADTOKEN", "123456:ABC/def")
	t.Setenv("ASKBRIDGE_TEST_TG_SECRET1", "x")
	t.Setenv("ASKBRIDGE_TEST_TG_SECRETBAD", "not a secret: spaces and colons")
	t.Setenv("ASKBRIDGE_TEST_TG_SECRET", "webhook-secret-0123456789")
	t.Setenv("ASKBRIDGE_TEST_SLACK_BOT", "xoxb-test")
	t.Setenv("ASKBRIDGE_TEST_SLACK_SPACES", "   ")
	base := "listen: 0.0.0.0:0\nagents:\n  - name: a\n    key_env: ASKBRIDGE_TEST_AGENT_LONG\n"
	web := func(env string) string { return "channels:\n  web:\n    token_env: " + env + "\n" }
	telegram := func(tokenEnv, secretEnv string) string {
		return "  telegram:\n    token_env: " + tokenEnv + "\n    mode: webhook\n    webhook_url: https://bridge.example.com/telegram\n    webhook_secret_env: " + secretEnv + "\n"
	}
	tests := []struct {
		name, body, want string
	}{
		{"web token of 3 characters", web("ASKBRIDGE_TEST_WEB_SHORT"),
			"channels.web: the token in ASKBRIDGE_TEST_WEB_SHORT is too short: use at least 16 characters"},
		{"telegram webhook secret of 1 character", web("ASKBRIDGE_TEST_WEB_LONG") + telegram("ASKBRIDGE_TEST_TG_TOKEN", "ASKBRIDGE_TEST_TG_SECRET1"),
			"channels.telegram: environment variable ASKBRIDGE_TEST_TG_SECRET1 (webhook_secret_env) holds 1 character; a webhook secret needs at least 16"},
		{"telegram webhook secret Telegram would refuse", web("ASKBRIDGE_TEST_WEB_LONG") + telegram("ASKBRIDGE_TEST_TG_TOKEN", "ASKBRIDGE_TEST_TG_SECRETBAD"),
			"channels.telegram: environment variable ASKBRIDGE_TEST_TG_SECRETBAD: a webhook secret is 1–256 characters of A-Z, a-z, 0-9, _ and -"},
		{"telegram token that is none", web("ASKBRIDGE_TEST_WEB_LONG") + telegram("ASKBRIDGE_TEST_TG_BADTOKEN", "ASKBRIDGE_TEST_TG_SECRET"),
			"channels.telegram: environment variable ASKBRIDGE_TEST_TG_BADTOKEN does not hold a bot token"},
		{"slack signing secret of spaces", web("ASKBRIDGE_TEST_WEB_LONG") + "  slack:\n    mode: http\n    bot_token_env: ASKBRIDGE_TEST_SLACK_BOT\n    signing_secret_env: ASKBRIDGE_TEST_SLACK_SPACES\n",
			"channels.slack.signing_secret_env: environment variable ASKBRIDGE_TEST_SLACK_SPACES is empty or unset"},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".yaml")
			if err := os.WriteFile(path, []byte(base+tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			check := runBridge(t, "127.0.0.1:1", "check-config", "--config", path)
			serve := runBridge(t, "127.0.0.1:1", "serve", "--config", path, "--data-dir", t.TempDir())
			for name, r := range map[string]cliResult{"check-config": check, "serve": serve} {
				if r.code != cmdline.ExitBadInput || !strings.Contains(r.stderr, tt.want) {
					t.Errorf("%s: exit %d, said %q; want %d saying %q", name, r.code, r.stderr, cmdline.ExitBadInput, tt.want)
				}
				if strings.Contains(r.stderr, "abc\n") || strings.Contains(r.stderr, "ABC/def") {
					t.Errorf("%s shows a secret: %q", name, r.stderr)
				}
			}
		})
	}
	t.Run("good secrets", func(t *testing.T) {
		path := filepath.Join(dir, "good.yaml")
		if err := os.WriteFile(path, []byte(base+web("ASKBRIDGE_TEST_WEB_LONG")+telegram("ASKBRIDGE_TEST_TG_TOKEN", "ASKBRIDGE_TEST_TG_SECRET")), 0o600); err != nil {
			t.Fatal(err)
		}
		if r := runBridge(t, "127.0.0.1:1", "check-config", "--config", path); r.code != 0 || !strings.Contains(r.stdout, "config OK") {
			t.Fatalf("check-config: exit %d, %q %q; want OK", r.code, r.stdout, r.stderr)
		}
	})
}
