package web

import (
	"github.com/askbridge/askbridge/channels"

	"errors"
	"fmt"
	"os"
	"strings"
)

// DefaultHistory is how many resolved questions the page shows by default.
const DefaultHistory = 50

// MaxHistory bounds Config.History.
const MaxHistory = 1000

// minTokenLen is the shortest web token accepted; shorter ones are guessable.
const minTokenLen = 16

// Config configures the web inbox; it is the "web" section of the bridge's
// configuration file.
type Config struct {
	// Disabled turns the web inbox off (it is on by default).
	Disabled bool `yaml:"disabled"`
	// TokenEnv names the environment variable holding the shared web
	// token, for set-ups where one person (or everyone alike) answers.
	// With any way to sign in configured (this token, a person's own
	// web_token_env, or OIDC), the page asks to sign in before showing
	// anything; one of them is required when the server listens beyond
	// loopback.
	TokenEnv string `yaml:"token_env"`
	// TokenPerson names the person (an id under people) the shared token
	// signs in as. Without it the shared token signs in as the user
	// Name, who is no person.
	TokenPerson string `yaml:"token_person"`
	// Name is who answers are recorded as ("answered_by") when nobody
	// signs in as a person: the shared token without token_person, or an
	// open loopback page. It defaults to "web" with a token and "local"
	// on an open loopback page.
	Name string `yaml:"name"`
	// OIDC turns on single sign-on through an OpenID Connect provider
	// (optional; off while its keys are empty): the verified email
	// selects the person.
	OIDC *OIDCConfig `yaml:"oidc"`
	// History is how many resolved questions the page shows (default 50).
	History int `yaml:"history"`
	// PushContact is how a push service may reach whoever runs the
	// bridge about its notifications: a mailto: address or an https URL,
	// sent as the VAPID "sub" claim (default DefaultPushContact).
	PushContact string `yaml:"push_contact"`
	// Language is the channel's locale (channels.X.locale).
	channels.Language `yaml:",inline"`
}

// Validate checks the configuration and reports the first problem, naming
// the key.
func (c Config) Validate() error {
	if c.TokenEnv != "" {
		if strings.ContainsAny(c.TokenEnv, " =\t\n") {
			return fmt.Errorf("web: token_env %q must be the name of an environment variable, not its value", c.TokenEnv)
		}
	}
	if strings.ContainsAny(c.TokenPerson, " \t\n") {
		return fmt.Errorf("web: token_person %q must be the id of a person listed under people", c.TokenPerson)
	}
	if c.TokenPerson != "" && c.TokenEnv == "" {
		return fmt.Errorf("web: token_person %q needs token_env, the shared token that signs in as that person", c.TokenPerson)
	}
	if c.TokenPerson != "" && c.Name != "" {
		return fmt.Errorf("web: name %q and token_person %q are both set: the shared token signs in as the person, under the person's name; remove name", c.Name, c.TokenPerson)
	}
	if c.OIDC.on() {
		if err := c.OIDC.validate(); err != nil {
			return err
		}
	}
	if len(c.Name) > 64 {
		return fmt.Errorf("web: name must be at most 64 characters, got %d", len(c.Name))
	}
	if strings.TrimSpace(c.Name) != c.Name {
		return fmt.Errorf("web: name %q must not start or end with spaces", c.Name)
	}
	if c.PushContact != "" && !strings.HasPrefix(c.PushContact, "mailto:") && !strings.HasPrefix(c.PushContact, "https://") {
		return fmt.Errorf("web: push_contact %q must be a mailto: address or an https:// URL", c.PushContact)
	}
	if c.History < 0 || c.History > MaxHistory {
		return fmt.Errorf("web: history must be between 0 and %d, got %d", MaxHistory, c.History)
	}
	return nil
}

// withDefaults returns c with empty fields filled in.
func (c Config) withDefaults() Config {
	if c.History == 0 {
		c.History = DefaultHistory
	}
	return c
}

// token reads the web token from the environment; "" when none is
// configured. A configured but empty or short variable is an error, so a
// typo never silently opens the inbox.
func (c Config) token() (string, error) {
	if c.TokenEnv == "" {
		return "", nil
	}
	v, ok := os.LookupEnv(c.TokenEnv)
	if !ok || v == "" {
		return "", fmt.Errorf("web: token_env names %s, but that environment variable is not set", c.TokenEnv)
	}
	if err := checkToken(c.TokenEnv, v); err != nil {
		return "", err
	}
	return v, nil
}

// CheckSecrets checks the token a set token_env holds as New does, so
// that check-config refuses what serve refuses; an unset variable is left
// to the check of unset variables (config.CheckEnv).
func (c Config) CheckSecrets() error {
	if v := os.Getenv(c.TokenEnv); c.TokenEnv != "" && v != "" {
		return checkToken(c.TokenEnv, v)
	}
	return nil
}

// checkToken refuses a guessable token v, read from the variable env.
func checkToken(env, v string) error {
	if len(v) < minTokenLen {
		return fmt.Errorf("web: the token in %s is too short: use at least %d characters", env, minTokenLen)
	}
	return nil
}

// errNeedToken is returned by New when the inbox would be open beyond
// loopback.
var errNeedToken = errors.New("web: the server listens beyond loopback, so the web inbox needs a token: set web.token_env to the name of an environment variable holding one, give people their own (web_token_env), or set up web.oidc")
