package telegram

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
)

// recorder is an InboundHandler that hears nothing worth answering.
func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // "" = valid
	}{
		{"defaults", Config{TokenEnv: "T"}, ""},
		{"no token_env", Config{}, "telegram.token_env: required"},
		{"bad mode", Config{TokenEnv: "T", Mode: "push"}, `telegram.mode: "push" is not polling or webhook`},
		{"webhook without url", Config{TokenEnv: "T", Mode: ModeWebhook, WebhookSecretEnv: "S"}, "telegram.webhook_url"},
		{"webhook without secret", Config{TokenEnv: "T", Mode: ModeWebhook, WebhookURL: "https://x.example/tg"}, "telegram.webhook_secret_env: required"},
		{"bad api_url", Config{TokenEnv: "T", APIURL: "api.telegram.org"}, "telegram.api_url"},
		{"api_url with a percent", Config{TokenEnv: "T", APIURL: "https://x.example/%s"}, "telegram.api_url"},
		{"poll_timeout too long", Config{TokenEnv: "T", PollTimeout: time.Hour}, "telegram.poll_timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if tt.cfg != (Config{TokenEnv: "T"}) && tt.name == "defaults" {
					t.Errorf("Validate changed the config: %+v", tt.cfg)
				}
				if d := tt.cfg.withDefaults(); d.APIURL != DefaultAPIURL || d.Mode != ModePolling || d.PollTimeout != 30*time.Second {
					t.Errorf("defaults not applied: %+v", d)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNewNamesTheMissingVariable(t *testing.T) {
	t.Setenv("ASKBRIDGE_TEST_EMPTY_TOKEN", "")
	t.Setenv("ASKBRIDGE_TEST_SOME_TOKEN", "1:abc")
	t.Setenv("ASKBRIDGE_TEST_BAD_SECRET", "has spaces!")
	t.Setenv("ASKBRIDGE_TEST_SHORT_SECRET", "s3cret_Token-1")
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"empty token", Config{TokenEnv: "ASKBRIDGE_TEST_EMPTY_TOKEN"}, "environment variable ASKBRIDGE_TEST_EMPTY_TOKEN (token_env) is empty or unset"},
		{"no secret", Config{TokenEnv: "ASKBRIDGE_TEST_SOME_TOKEN", Mode: ModeWebhook, WebhookURL: "https://x.example/tg", WebhookSecretEnv: "ASKBRIDGE_TEST_UNSET_SECRET"}, "ASKBRIDGE_TEST_UNSET_SECRET (webhook_secret_env) is empty or unset"},
		{"bad secret", Config{TokenEnv: "ASKBRIDGE_TEST_SOME_TOKEN", Mode: ModeWebhook, WebhookURL: "https://x.example/tg", WebhookSecretEnv: "ASKBRIDGE_TEST_BAD_SECRET"}, "ASKBRIDGE_TEST_BAD_SECRET: a webhook secret is 1–256 characters"},
		{"short secret", Config{TokenEnv: "ASKBRIDGE_TEST_SOME_TOKEN", Mode: ModeWebhook, WebhookURL: "https://x.example/tg", WebhookSecretEnv: "ASKBRIDGE_TEST_SHORT_SECRET"}, "ASKBRIDGE_TEST_SHORT_SECRET (webhook_secret_env) holds 14 characters; a webhook secret needs at least 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg, &brokertest.Inbox{}, channels.Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestRunChecksTheToken(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	t.Setenv("ASKBRIDGE_TEST_WRONG_TOKEN", "999:wrong")
	ch, err := New(Config{TokenEnv: "ASKBRIDGE_TEST_WRONG_TOKEN", APIURL: e.fake.URL()}, &brokertest.Inbox{}, channels.Options{})
	if err != nil {
		t.Fatalf("New, which makes no call, failed: %v", err)
	}
	if n := len(e.fake.Calls("getMe")); n != 0 {
		t.Fatalf("New called getMe %d times; it is Run that asks", n)
	}
	err = ch.Run(e.ctx)
	if !errors.Is(err, broker.ErrPermanent) || !strings.Contains(err.Error(), "Unauthorized") || !strings.Contains(err.Error(), "ASKBRIDGE_TEST_WRONG_TOKEN") {
		t.Errorf("error %v", err)
	}
	if strings.Contains(err.Error(), "999:wrong") {
		t.Errorf("token leaked: %v", err)
	}
	if e.ch.BotUsername() != "" {
		t.Errorf("the bot knows its name %q before Run", e.ch.BotUsername())
	}
	if err := e.ch.identify(e.ctx); err != nil {
		t.Fatalf("getMe: %v", err)
	}
	if e.ch.Name() != "telegram" || e.ch.BotUsername() != "askbridge_bot" {
		t.Errorf("name %q bot %q", e.ch.Name(), e.ch.BotUsername())
	}
}

func TestWebhookPath(t *testing.T) {
	for url, want := range map[string]string{
		"https://bridge.example/telegram/hook": "/telegram/hook",
		"https://bridge.example":               "/",
		"":                                     "/",
	} {
		c := Config{WebhookURL: url}
		if got := c.WebhookPath(); got != want {
			t.Errorf("WebhookPath(%q) = %q, want %q", url, got, want)
		}
	}
}

func TestConfigFromYAML(t *testing.T) {
	src := `
token_env: TELEGRAM_BOT_TOKEN
api_url: https://tg.example/
mode: webhook
webhook_url: https://bridge.example/telegram
webhook_secret_env: TELEGRAM_WEBHOOK_SECRET
poll_timeout: 45s
`
	var c Config
	dec := yaml.NewDecoder(strings.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("validate: %v", err)
	}
	c = c.withDefaults()
	want := Config{TokenEnv: "TELEGRAM_BOT_TOKEN", APIURL: "https://tg.example", Mode: ModeWebhook,
		WebhookURL: "https://bridge.example/telegram", WebhookSecretEnv: "TELEGRAM_WEBHOOK_SECRET", PollTimeout: 45 * time.Second}
	if c.TokenEnv != want.TokenEnv || c.APIURL != want.APIURL || c.Mode != want.Mode || c.WebhookURL != want.WebhookURL ||
		c.WebhookSecretEnv != want.WebhookSecretEnv || c.PollTimeout != want.PollTimeout {
		t.Errorf("config %+v", c)
	}
	var typo Config
	dec = yaml.NewDecoder(strings.NewReader("token_env: X\npoll_timeot: 5s\n"))
	dec.KnownFields(true)
	if err := dec.Decode(&typo); err == nil || !strings.Contains(err.Error(), "poll_timeot") {
		t.Errorf("a typo was accepted: %v", err)
	}
}
