package api

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
)

// AuditSettings is the audit section: how long audit trails are kept,
// and the key that reads every agent's.
type AuditSettings struct {
	// Retention is how long a question's audit trail is kept after its
	// newest entry, past the question itself (default 400 days).
	Retention config.Duration `yaml:"retention"`
	// KeyEnv names the environment variable holding a bearer key that
	// reads the audit trails of every agent's questions (GET /v1/audit,
	// GET /v1/questions/{id}/audit); agent keys read their own.
	KeyEnv string `yaml:"key_env"`
}

// defaultStoreRetention is how long resolved questions are kept when
// store.retention is not set (the stores' default).
const defaultStoreRetention = 7 * 24 * time.Hour

// KeepFor is the retention, with its default.
func (a AuditSettings) KeepFor() time.Duration {
	if a.Retention == 0 {
		return broker.DefaultAuditRetention
	}
	return time.Duration(a.Retention)
}

// Key is the audit key, read from its variable ("" without one).
func (a AuditSettings) Key() string {
	if a.KeyEnv == "" {
		return ""
	}
	return os.Getenv(a.KeyEnv)
}

// Validate checks the audit section, reporting every problem: a
// retention that is not negative and outlasts the questions (pending up
// to broker.MaxTimeout, then kept storeRetention, store.retention, 0 for
// its default of 7 days), since a trail must outlive its question; a key in a variable that is set,
// long enough where the bridge is exposed, and held by no agent or
// responder (the audit key reads every agent's trails). Errors name the
// variables, never the key.
func (a AuditSettings) Validate(storeRetention time.Duration, exposed bool, agents []AgentSettings, responders []ResponderSettings) error {
	var p config.Problems
	if storeRetention == 0 {
		storeRetention = defaultStoreRetention
	}
	switch r := time.Duration(a.Retention); {
	case r < 0:
		p.Add(fmt.Errorf("audit.retention: must not be negative (leave it out for the default, %d days)", broker.DefaultAuditRetention/(24*time.Hour)))
	case r > 0 && r < storeRetention+broker.MaxTimeout:
		p.Add(fmt.Errorf("audit.retention: %s is shorter than a question may be kept, %s (pending up to %s, then store.retention, %s): a question's audit trail must outlive it", r, storeRetention+broker.MaxTimeout, broker.MaxTimeout, storeRetention))
	}
	if a.KeyEnv == "" {
		return errors.Join(p...)
	}
	key := os.Getenv(a.KeyEnv)
	switch {
	case key == "":
		p.Add(&config.UnsetEnvError{Field: "audit.key_env", Var: a.KeyEnv})
	case exposed && len(key) < minSecretLen:
		p.Add(fmt.Errorf("audit.key_env: the key in %s has %d characters; a bridge reachable beyond loopback needs keys of at least %d (e.g. openssl rand -hex 24)", a.KeyEnv, len(key), minSecretLen))
	}
	if key != "" {
		for i, k := range agents {
			if os.Getenv(k.KeyEnv) == key {
				p.Add(fmt.Errorf("audit.key_env: %s holds the same key as agents[%d].key_env (%s): the audit key reads every agent's trails, so give it a key of its own", a.KeyEnv, i, k.KeyEnv))
			}
		}
		for i, k := range responders {
			if os.Getenv(k.KeyEnv) == key {
				p.Add(fmt.Errorf("audit.key_env: %s holds the same key as responders[%d].key_env (%s): give the audit key a key of its own", a.KeyEnv, i, k.KeyEnv))
			}
		}
	}
	return errors.Join(p...)
}
