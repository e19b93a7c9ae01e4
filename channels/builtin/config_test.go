package builtin

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/channels/cli"
	"github.com/askbridge/askbridge/channels/telegram"
	"github.com/askbridge/askbridge/channels/web"
)

// The text channel and the web inbox are on unless disabled, a platform
// when its section is present; the default route takes the two that need
// no chat id.
func TestEnabledAndDefaultTargets(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		enabled []string
		targets []string
	}{
		{"no section", Config{}, []string{"cli", "web"}, []string{"web", "cli"}},
		{"web off", Config{Web: web.Config{Disabled: true}}, []string{"cli"}, []string{"cli"}},
		{"both off", Config{CLI: cli.Config{Disabled: true}, Web: web.Config{Disabled: true}}, []string{}, nil},
		{"telegram", Config{CLI: cli.Config{Disabled: true}, Telegram: &telegram.Config{}}, []string{"telegram", "web"}, []string{"web"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(tt.cfg.Enabled()))
			if !slices.Equal(got, tt.enabled) {
				t.Errorf("Enabled = %v, want %v", got, tt.enabled)
			}
			if got := tt.cfg.DefaultTargets(); !slices.Equal(got, tt.targets) {
				t.Errorf("DefaultTargets = %v, want %v", got, tt.targets)
			}
		})
	}
}

// A bad section is named under channels., and the web inbox's section is
// checked even when the inbox is off.
func TestValidateNamesTheSection(t *testing.T) {
	err := Config{Web: web.Config{Disabled: true, TokenEnv: "A TOKEN"}}.Validate()
	if err == nil || !strings.HasPrefix(err.Error(), "channels.web: token_env") {
		t.Fatalf("err = %v, want the channels.web section named", err)
	}
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("defaults refused: %v", err)
	}
}
