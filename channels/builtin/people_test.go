package builtin

import (
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/web"
)

// The edge serves the inbox through a reverse proxy only when it is off or
// asks to sign in; a person's own token or single sign-on counts.
func TestInboxLocked(t *testing.T) {
	sso := &web.OIDCConfig{Issuer: "https://accounts.google.com", ClientID: "c", ClientSecretEnv: "S", RedirectURL: "https://b.example.com/inbox/oidc/callback"}
	ana := []broker.Person{{ID: "ana", WebTokenEnv: "ANA_TOKEN"}}
	tests := []struct {
		name   string
		cfg    Config
		people []broker.Person
		locked bool
	}{
		{"open", Config{}, []broker.Person{{ID: "ana"}}, false},
		{"off", Config{Web: web.Config{Disabled: true}}, nil, true},
		{"shared token", Config{Web: web.Config{TokenEnv: "T"}}, nil, true},
		{"a person's token", Config{}, ana, true},
		{"single sign-on", Config{Web: web.Config{OIDC: sso}}, nil, true},
		{"an empty oidc section", Config{Web: web.Config{OIDC: &web.OIDCConfig{}}}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cfg.InboxLocked(tc.people); got != tc.locked {
				t.Fatalf("InboxLocked = %v, want %v", got, tc.locked)
			}
		})
	}
}

// ValidatePeople checks the web inbox's section against the people.
func TestValidatePeopleSection(t *testing.T) {
	err := Config{Web: web.Config{TokenEnv: "T", TokenPerson: "zoe"}}.ValidatePeople([]broker.Person{{ID: "ana"}}, false)
	if err == nil || !strings.Contains(err.Error(), `channels.web.token_person: "zoe" is not a person listed under people`) {
		t.Fatalf("err %v, want one naming token_person", err)
	}
}
