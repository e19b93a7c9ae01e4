package telegram

import (
	"github.com/askbridge/askbridge/channels"

	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// Receive modes.
const (
	ModePolling = "polling"
	ModeWebhook = "webhook"
)

// minWebhookSecretLen is the shortest webhook secret accepted.
const minWebhookSecretLen = 16

// DefaultAPIURL is the public Bot API server.
const DefaultAPIURL = "https://api.telegram.org"

// Config configures the Telegram channel.
type Config struct {
	// TokenEnv names the environment variable holding the bot token from
	// BotFather. Required.
	TokenEnv string `yaml:"token_env"`
	// APIURL is the Bot API server; a self-hosted telegram-bot-api server
	// or a proxy may replace the default https://api.telegram.org.
	APIURL string `yaml:"api_url"`
	// Mode is how updates arrive: "polling" (default) or "webhook".
	Mode string `yaml:"mode"`
	// WebhookURL is the public HTTPS URL Telegram posts updates to, where
	// Handler is served. Required in webhook mode.
	WebhookURL string `yaml:"webhook_url"`
	// WebhookSecretEnv names the environment variable holding the secret
	// token Telegram sends in X-Telegram-Bot-Api-Secret-Token. Required in
	// webhook mode: 16–256 characters of A–Z, a–z, 0–9, _ and -.
	WebhookSecretEnv string `yaml:"webhook_secret_env"`
	// PollTimeout is how long one getUpdates call may wait (default 30s).
	PollTimeout time.Duration `yaml:"poll_timeout"`
	// Language is the channel's locale (channels.X.locale).
	channels.Language `yaml:",inline"`
}

// withDefaults returns c with empty fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.APIURL == "" {
		c.APIURL = DefaultAPIURL
	}
	c.APIURL = strings.TrimRight(c.APIURL, "/")
	if c.Mode == "" {
		c.Mode = ModePolling
	}
	if c.PollTimeout == 0 {
		c.PollTimeout = 30 * time.Second
	}
	return c
}

// Validate checks c with its defaults, naming the offending key. It
// changes nothing and does not read the environment; New does.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.TokenEnv == "" {
		errs = append(errs, errors.New("telegram.token_env: required (the environment variable holding the bot token)"))
	}
	if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Contains(c.APIURL, "%") {
		errs = append(errs, fmt.Errorf("telegram.api_url: %q is not an http(s) URL", c.APIURL))
	}
	switch c.Mode {
	case ModePolling:
	case ModeWebhook:
		if u, err := url.Parse(c.WebhookURL); c.WebhookURL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("telegram.webhook_url: %q is not an https URL (required in webhook mode)", c.WebhookURL))
		}
		if c.WebhookSecretEnv == "" {
			errs = append(errs, errors.New("telegram.webhook_secret_env: required in webhook mode (the environment variable holding the webhook secret token)"))
		}
	default:
		errs = append(errs, fmt.Errorf("telegram.mode: %q is not polling or webhook", c.Mode))
	}
	if c.PollTimeout < time.Second || c.PollTimeout > 10*time.Minute {
		errs = append(errs, fmt.Errorf("telegram.poll_timeout: %s is outside 1s–10m", c.PollTimeout))
	}
	return errors.Join(errs...)
}

// WebhookPath is the path of WebhookURL, where Handler is to be mounted
// ("/" when the URL has none).
func (c Config) WebhookPath() string {
	u, err := url.Parse(c.WebhookURL)
	if err != nil || u.Path == "" {
		return "/"
	}
	return u.Path
}

// secrets reads the token and webhook secret from the environment.
func (c Config) secrets() (token, secret string, err error) {
	token = strings.TrimSpace(os.Getenv(c.TokenEnv))
	if err := c.checkToken(token); err != nil {
		return "", "", err
	}
	if c.Mode != ModeWebhook {
		return token, "", nil
	}
	secret = os.Getenv(c.WebhookSecretEnv)
	if err := c.checkWebhookSecret(secret); err != nil {
		return "", "", err
	}
	return token, secret, nil
}

// CheckSecrets checks the values of the variables c names that are set,
// as New reads them, so that check-config refuses what serve refuses; an
// unset variable is left to the check of unset variables
// (config.CheckEnv).
func (c Config) CheckSecrets() error {
	c = c.withDefaults()
	var errs []error
	if c.TokenEnv != "" && os.Getenv(c.TokenEnv) != "" {
		errs = append(errs, c.checkToken(strings.TrimSpace(os.Getenv(c.TokenEnv))))
	}
	if c.Mode == ModeWebhook && c.WebhookSecretEnv != "" && os.Getenv(c.WebhookSecretEnv) != "" {
		errs = append(errs, c.checkWebhookSecret(os.Getenv(c.WebhookSecretEnv)))
	}
	return errors.Join(errs...)
}

// checkToken refuses a token that is empty or could not be one.
func (c Config) checkToken(token string) error {
	if token == "" {
		return fmt.Errorf("telegram: environment variable %s (token_env) is empty or unset", c.TokenEnv)
	}
	if strings.ContainsAny(token, "/ ?#%") {
		return fmt.Errorf("telegram: environment variable %s does not hold a bot token (it has characters a token never has)", c.TokenEnv)
	}
	return nil
}

// checkWebhookSecret refuses a webhook secret that Telegram would not
// take or that could be guessed.
func (c Config) checkWebhookSecret(secret string) error {
	if secret == "" {
		return fmt.Errorf("telegram: environment variable %s (webhook_secret_env) is empty or unset", c.WebhookSecretEnv)
	}
	if len(secret) > 256 || strings.IndexFunc(secret, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
	}) >= 0 {
		return fmt.Errorf("telegram: environment variable %s: a webhook secret is 1–256 characters of A-Z, a-z, 0-9, _ and -", c.WebhookSecretEnv)
	}
	// Telegram reaches the webhook from the internet, whatever address
	// the bridge listens on, so the secret is all that keeps forged
	// updates out: it must not be guessable.
	if len(secret) < minWebhookSecretLen {
		chars := "characters"
		if len(secret) == 1 {
			chars = "character"
		}
		return fmt.Errorf("telegram: environment variable %s (webhook_secret_env) holds %d %s; a webhook secret needs at least %d (e.g. openssl rand -hex 24)", c.WebhookSecretEnv, len(secret), chars, minWebhookSecretLen)
	}
	return nil
}
