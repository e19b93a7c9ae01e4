package api_test

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
)

func TestAuditSettings(t *testing.T) {
	t.Setenv("AUDIT_KEY", "audit-key-long-enough-1")
	t.Setenv("SHORT_KEY", "short")
	t.Setenv("AGENT_KEY", "agent-key-long-enough-1")
	agents := []api.AgentSettings{{KeySettings: api.KeySettings{Name: "claude", KeyEnv: "AGENT_KEY"}}}
	day := 24 * time.Hour
	for _, tc := range []struct {
		name    string
		a       api.AuditSettings
		store   time.Duration
		exposed bool
		keep    time.Duration
		err     string
	}{
		{"defaults", api.AuditSettings{}, 0, false, broker.DefaultAuditRetention, ""},
		{"a year", api.AuditSettings{Retention: config.Duration(365 * day)}, 0, false, 365 * day, ""},
		{"as long as the questions", api.AuditSettings{Retention: config.Duration(37 * day)}, 30 * day, false, 37 * day, ""},
		{"a key", api.AuditSettings{KeyEnv: "AUDIT_KEY"}, 0, true, broker.DefaultAuditRetention, ""},
		{"negative", api.AuditSettings{Retention: config.Duration(-day)}, 0, false, 0, "audit.retention: must not be negative"},
		{"shorter than the default store retention", api.AuditSettings{Retention: config.Duration(10 * day)}, 0, false, 0, "audit.retention: 240h0m0s is shorter than a question may be kept, 336h0m0s (pending up to 168h0m0s, then store.retention, 168h0m0s)"},
		{"shorter than store.retention", api.AuditSettings{Retention: config.Duration(36 * day)}, 30 * day, false, 0, "is shorter than a question may be kept, 888h0m0s"},
		{"an unset variable", api.AuditSettings{KeyEnv: "NO_SUCH_AUDIT_KEY"}, 0, false, 0, "audit.key_env: environment variable NO_SUCH_AUDIT_KEY is not set"},
		{"a short key beyond loopback", api.AuditSettings{KeyEnv: "SHORT_KEY"}, 0, true, 0, "audit.key_env: the key in SHORT_KEY has 5 characters"},
		{"an agent's key", api.AuditSettings{KeyEnv: "AGENT_KEY"}, 0, false, 0, "audit.key_env: AGENT_KEY holds the same key as agents[0].key_env (AGENT_KEY)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.a.Validate(tc.store, tc.exposed, agents, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Validate = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || tc.a.KeepFor() != tc.keep {
				t.Fatalf("Validate = %v, KeepFor %s; want no error, %s", err, tc.a.KeepFor(), tc.keep)
			}
		})
	}
	if got := (api.AuditSettings{KeyEnv: "AUDIT_KEY"}).Key(); got != "audit-key-long-enough-1" {
		t.Fatalf("Key() = %q", got)
	}
}
