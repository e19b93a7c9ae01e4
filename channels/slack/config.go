package slack

import (
	"github.com/askbridge/askbridge/channels"

	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
)

// Connection modes.
const (
	// ModeSocket receives events over a Socket Mode WebSocket (default).
	ModeSocket = "socket"
	// ModeHTTP receives events as signed HTTP requests on Handler.
	ModeHTTP = "http"
)

// DefaultAPIURL is Slack's Web API base URL.
const DefaultAPIURL = "https://slack.com/api"

// Config configures the Slack channel. Secrets are never written in the
// config itself: it names the environment variables that hold them.
type Config struct {
	// BotTokenEnv names the variable holding the bot token (xoxb-…).
	BotTokenEnv string `yaml:"bot_token_env"`
	// AppTokenEnv names the variable holding the app-level token
	// (xapp-…, scope connections:write); required in socket mode.
	AppTokenEnv string `yaml:"app_token_env"`
	// SigningSecretEnv names the variable holding the app's signing
	// secret; required in http mode.
	SigningSecretEnv string `yaml:"signing_secret_env"`
	// Mode is "socket" (default) or "http".
	Mode string `yaml:"mode"`
	// APIURL is the Web API base URL, default https://slack.com/api.
	APIURL string `yaml:"api_url"`
	// Language is the channel's locale (channels.X.locale).
	channels.Language `yaml:",inline"`
}

// withDefaults returns cfg with empty fields set to their defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Mode == "" {
		cfg.Mode = ModeSocket
	}
	if cfg.APIURL == "" {
		cfg.APIURL = DefaultAPIURL
	}
	cfg.APIURL = strings.TrimRight(cfg.APIURL, "/")
	return cfg
}

// Validate checks cfg without reading the environment. Each error names
// the offending key.
func (cfg Config) Validate() error {
	c := cfg.withDefaults()
	var errs []error
	if strings.TrimSpace(c.BotTokenEnv) == "" {
		errs = append(errs, errors.New("slack.bot_token_env: required (the name of the environment variable holding the bot token)"))
	}
	switch c.Mode {
	case ModeSocket:
		if strings.TrimSpace(c.AppTokenEnv) == "" {
			errs = append(errs, errors.New("slack.app_token_env: required in socket mode (the variable holding the xapp- app-level token)"))
		}
	case ModeHTTP:
		if strings.TrimSpace(c.SigningSecretEnv) == "" {
			errs = append(errs, errors.New("slack.signing_secret_env: required in http mode (the variable holding the signing secret)"))
		}
	default:
		errs = append(errs, fmt.Errorf("slack.mode: %q is not a mode (use \"socket\" or \"http\")", cfg.Mode))
	}
	if u, err := url.Parse(c.APIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("slack.api_url: %q is not an http(s) URL", cfg.APIURL))
	}
	return errors.Join(errs...)
}

// secrets are the values read from the environment.
type secrets struct {
	botToken      string
	appToken      string
	signingSecret string
}

// readSecrets reads the variables cfg names; an empty variable is an error
// that names it (never its value).
func (cfg Config) readSecrets() (secrets, error) {
	var s secrets
	var err error
	if s.botToken, err = secret("bot_token_env", cfg.BotTokenEnv); err != nil {
		return s, err
	}
	switch cfg.Mode {
	case ModeSocket:
		s.appToken, err = secret("app_token_env", cfg.AppTokenEnv)
	case ModeHTTP:
		s.signingSecret, err = secret("signing_secret_env", cfg.SigningSecretEnv)
	}
	return s, err
}

// CheckSecrets checks the values of the variables cfg uses that are set,
// as New reads them (one holding only spaces is refused), so that
// check-config refuses what serve refuses; an unset variable is left to
// the check of unset variables (config.CheckEnv).
func (cfg Config) CheckSecrets() error {
	c := cfg.withDefaults()
	var errs []error
	for _, v := range []struct {
		key, name string
		used      bool
	}{
		{"bot_token_env", c.BotTokenEnv, true},
		{"app_token_env", c.AppTokenEnv, c.Mode == ModeSocket},
		{"signing_secret_env", c.SigningSecretEnv, c.Mode == ModeHTTP},
	} {
		if v.used && v.name != "" && os.Getenv(v.name) != "" {
			_, err := secret(v.key, v.name)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// secret reads the variable name, which the setting key names, trimmed;
// one that is empty or unset is an error that names it.
func secret(key, name string) (string, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return "", fmt.Errorf("slack.%s: environment variable %s is empty or unset", key, name)
	}
	return v, nil
}
