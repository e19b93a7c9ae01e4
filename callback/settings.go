package callback

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/askbridge/askbridge/internal/config"
)

// Settings is the callbacks section of the configuration file: where
// results may be delivered and how. Secrets come from environment
// variables named here; Config reads them.
type Settings struct {
	// Allow lists the URLs callbacks may go to: URL prefixes
	// ("https://hooks.example.com/askbridge/"), host[:port] patterns
	// ("hooks.example.com", "*.example.com") or "*"; and the internal
	// address ranges the bridge may connect to for them, in CIDR form
	// ("127.0.0.0/8", "10.1.2.0/24"), which also allow URLs whose host is
	// an address in the range. Internal addresses (loopback, private,
	// link-local, metadata, …) are refused unless a range names them.
	// Empty: no callbacks at all. See callback.Policy.
	Allow []string `yaml:"allow"`
	// SecretEnv names the variable holding the signing secret of agents
	// not listed in Secrets.
	SecretEnv string `yaml:"secret_env"`
	// Secrets gives agents their own signing secrets.
	Secrets []AgentSecret `yaml:"secrets"`
	// BaseBackoff, MaxBackoff, Window, Timeout: see Config
	// (defaults 1s, 1h, 24h, 10s).
	BaseBackoff config.Duration `yaml:"base_backoff"`
	MaxBackoff  config.Duration `yaml:"max_backoff"`
	Window      config.Duration `yaml:"window"`
	Timeout     config.Duration `yaml:"timeout"`
	// Concurrency is how many deliveries run at once per instance (8).
	Concurrency int `yaml:"concurrency"`
}

// AgentSecret is one agent's callback signing secret.
type AgentSecret struct {
	Agent     string `yaml:"agent"`
	SecretEnv string `yaml:"secret_env"`
}

// Validate checks the callbacks section; every problem names its key.
func (c Settings) Validate() error {
	_, err := c.Config()
	return err
}

// Policy returns the allow list as a Policy, for the ask path
// (refuse a callback_url at once) and the deliverer (refuse it again
// before sending).
func (c Settings) Policy() (*Policy, error) {
	return NewPolicy(c.Allow)
}

// Config builds the deliverer's Config, reading the secrets; every
// problem names its key, an unset variable as *config.UnsetEnvError.
func (c Settings) Config() (Config, error) {
	p, err := c.Policy()
	if err != nil {
		return Config{}, err
	}
	out := Config{
		Policy: p, Secrets: map[string]string{}, Concurrency: c.Concurrency,
		BaseBackoff: time.Duration(c.BaseBackoff), MaxBackoff: time.Duration(c.MaxBackoff),
		Window: time.Duration(c.Window), Timeout: time.Duration(c.Timeout),
	}
	var problems []error
	if c.SecretEnv != "" {
		if out.DefaultSecret = os.Getenv(c.SecretEnv); out.DefaultSecret == "" {
			problems = append(problems, &config.UnsetEnvError{Field: "callbacks.secret_env", Var: c.SecretEnv})
		}
	}
	seen := map[string]bool{}
	for i, s := range c.Secrets {
		f := fmt.Sprintf("callbacks.secrets[%d]", i)
		switch {
		case s.Agent == "":
			problems = append(problems, fmt.Errorf("%s.agent: name the agent the secret is for", f))
		case seen[s.Agent]:
			problems = append(problems, fmt.Errorf("%s.agent: %q appears twice", f, s.Agent))
		}
		seen[s.Agent] = true
		switch {
		case s.SecretEnv == "":
			problems = append(problems, fmt.Errorf("%s.secret_env: name the environment variable that holds the secret", f))
		case os.Getenv(s.SecretEnv) == "":
			problems = append(problems, &config.UnsetEnvError{Field: f + ".secret_env", Var: s.SecretEnv})
		default:
			out.Secrets[s.Agent] = os.Getenv(s.SecretEnv)
		}
	}
	if c.Concurrency < 0 {
		problems = append(problems, fmt.Errorf("callbacks.concurrency: must be positive, got %d", c.Concurrency))
	} else if err := out.Validate(); err != nil {
		problems = append(problems, fmt.Errorf("callbacks: %w", err))
	}
	return out, errors.Join(problems...)
}
