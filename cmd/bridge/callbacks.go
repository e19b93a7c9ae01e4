package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/callback"
	"github.com/askbridge/askbridge/internal/config"
)

// CallbacksConfig configures webhook delivery of results (the callbacks:
// section). Secrets come from environment variables named here.
type CallbacksConfig struct {
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
	Secrets []CallbackSecret `yaml:"secrets"`
	// BaseBackoff, MaxBackoff, Window, Timeout: see callback.Config
	// (defaults 1s, 1h, 24h, 10s).
	BaseBackoff config.Duration `yaml:"base_backoff"`
	MaxBackoff  config.Duration `yaml:"max_backoff"`
	Window      config.Duration `yaml:"window"`
	Timeout     config.Duration `yaml:"timeout"`
	// Concurrency is how many deliveries run at once per instance (8).
	Concurrency int `yaml:"concurrency"`
}

// CallbackSecret is one agent's callback signing secret.
type CallbackSecret struct {
	Agent     string `yaml:"agent"`
	SecretEnv string `yaml:"secret_env"`
}

// validate checks the callbacks section; every problem names its key.
func (c CallbacksConfig) validate() error {
	_, err := c.deliveryConfig()
	return err
}

// policy returns the allow list as a callback.Policy, for the ask path
// (refuse a callback_url at once) and the deliverer (refuse it again
// before sending).
func (c CallbacksConfig) policy() (*callback.Policy, error) {
	return callback.NewPolicy(c.Allow)
}

// deliveryConfig builds the deliverer's settings, reading the secrets.
func (c CallbacksConfig) deliveryConfig() (callback.Config, error) {
	p, err := c.policy()
	if err != nil {
		return callback.Config{}, err
	}
	out := callback.Config{
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

// callbackJobs returns the jobs that deliver results to callback URLs,
// with the delivery counters registered in reg (when not nil). The deliverer runs on every instance: claiming
// a delivery holds it, so no two instances send the same attempt.
func callbackJobs(cfg Config, b *broker.Broker, log *slog.Logger, reg prometheus.Registerer) []func(context.Context) {
	dc, err := cfg.Callbacks.deliveryConfig()
	if err != nil {
		log.Error("callbacks are not delivered: fix the configuration", "err", err)
		return nil
	}
	dc.Registerer = reg
	d := callback.New(b.Store(), dc, log.With("component", "callbacks"))
	return []func(context.Context){d.Run}
}
