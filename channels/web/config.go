package web

import (
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
	// TokenEnv names the environment variable holding the web token. With
	// a token set, the page asks for it before showing anything. Required
	// when the server listens beyond loopback.
	TokenEnv string `yaml:"token_env"`
	// Name is who answers are recorded as ("answered_by"). It defaults to
	// "web" with a token and "local" on an open loopback page.
	Name string `yaml:"name"`
	// History is how many resolved questions the page shows (default 50).
	History int `yaml:"history"`
}

// Validate checks the configuration and reports the first problem, naming
// the key.
func (c Config) Validate() error {
	if c.TokenEnv != "" {
		if strings.ContainsAny(c.TokenEnv, " =\t\n") {
			return fmt.Errorf("web: token_env %q must be the name of an environment variable, not its value", c.TokenEnv)
		}
	}
	if len(c.Name) > 64 {
		return fmt.Errorf("web: name must be at most 64 characters, got %d", len(c.Name))
	}
	if strings.TrimSpace(c.Name) != c.Name {
		return fmt.Errorf("web: name %q must not start or end with spaces", c.Name)
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
	if len(v) < minTokenLen {
		return "", fmt.Errorf("web: the token in %s is too short: use at least %d characters", c.TokenEnv, minTokenLen)
	}
	return v, nil
}

// errNeedToken is returned by New when the inbox would be open beyond
// loopback.
var errNeedToken = errors.New("web: the server listens beyond loopback, so the web inbox needs a token: set web.token_env to the name of an environment variable holding one")
