package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// TestOutboxConfigKeys checks the outbox keys as a person writes them:
// unset means the platforms' limits and a 2 s grace, good values are read
// into the broker's configuration, bad ones are refused by serve and
// check-config with the key and the value named.
func TestOutboxConfigKeys(t *testing.T) {
	defaults := outbox.DefaultPacing()
	tests := []struct {
		name      string
		yaml      string
		wantGrace time.Duration
		want      map[string]outbox.Pacing
		wantErr   string
	}{
		{name: "unset: defaults", yaml: "listen: 127.0.0.1:8377\n", want: defaults},
		{name: "grace and rates", yaml: "outbox:\n  grace: 500ms\n  pacing:\n    telegram:\n      per_bot: 25/s\n      per_chat: 2/s\n      per_group: 30/min\n    slack:\n      per_channel: 20/s\n    discord:\n      per_channel: 5/s\n",
			wantGrace: 500 * time.Millisecond, want: map[string]outbox.Pacing{
				"telegram": {PerBot: 40 * time.Millisecond, PerChat: 500 * time.Millisecond, PerGroup: 2 * time.Second},
				"slack":    {PerChat: 50 * time.Millisecond, PerGroup: 50 * time.Millisecond},
				"discord":  {PerChat: 200 * time.Millisecond, PerGroup: 200 * time.Millisecond}}},
		{name: "one key: the others stay", yaml: "outbox:\n  pacing:\n    telegram:\n      per_group: 20/s\n",
			want: map[string]outbox.Pacing{"telegram": {PerBot: defaults["telegram"].PerBot, PerChat: time.Second, PerGroup: 50 * time.Millisecond}, "slack": defaults["slack"]}},
		{name: "off", yaml: "outbox:\n  pacing:\n    slack:\n      per_channel: \"off\"\n",
			want: map[string]outbox.Pacing{"telegram": defaults["telegram"], "slack": {}}},
		{name: "per hour", yaml: "outbox:\n  pacing:\n    telegram:\n      per_chat: 60/h\n",
			want: map[string]outbox.Pacing{"telegram": {PerBot: defaults["telegram"].PerBot, PerChat: time.Minute, PerGroup: defaults["telegram"].PerGroup}, "slack": defaults["slack"]}},
		{name: "zero grace", yaml: "outbox:\n  grace: 0s\n", wantErr: "outbox.grace: 0s is outside 100ms–30s"},
		{name: "negative grace", yaml: "outbox:\n  grace: -2s\n", wantErr: "outbox.grace"},
		{name: "absurd grace", yaml: "outbox:\n  grace: 10m\n", wantErr: "outbox.grace: 10m0s is outside 100ms–30s"},
		{name: "zero rate", yaml: "outbox:\n  pacing:\n    telegram:\n      per_chat: 0/s\n", wantErr: `outbox.pacing.telegram.per_chat: "0/s": the rate must be above zero`},
		{name: "negative rate", yaml: "outbox:\n  pacing:\n    slack:\n      per_channel: -1/s\n", wantErr: `outbox.pacing.slack.per_channel: "-1/s": the rate must be above zero`},
		{name: "absurd rate", yaml: "outbox:\n  pacing:\n    telegram:\n      per_bot: 30000/s\n", wantErr: `outbox.pacing.telegram.per_bot: "30000/s" is above the most of 1000/s`},
		{name: "too slow", yaml: "outbox:\n  pacing:\n    discord:\n      per_channel: 0.5/h\n", wantErr: `outbox.pacing.discord.per_channel: "0.5/h" is below the least of 1/h`},
		{name: "no unit", yaml: "outbox:\n  pacing:\n    telegram:\n      per_group: \"20\"\n", wantErr: `outbox.pacing.telegram.per_group: "20" is not a rate (use e.g. 30/s, 20/min, 100/h, or off)`},
		{name: "bad unit", yaml: "outbox:\n  pacing:\n    telegram:\n      per_group: 20/day\n", wantErr: `outbox.pacing.telegram.per_group: "20/day": the unit "day" is not s, min or h`},
		{name: "not a number", yaml: "outbox:\n  pacing:\n    slack:\n      per_channel: many/s\n", wantErr: `outbox.pacing.slack.per_channel: "many/s": "many" is not a number`},
		{name: "unknown key", yaml: "outbox:\n  pacing:\n    telegram:\n      per_room: 1/s\n", wantErr: `unknown key "per_room"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bridge.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := bridgeconfig.Load(path)
			if err == nil {
				err = cfg.Finish()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("config %q: err = %v, want it to say %q", tt.yaml, err, tt.wantErr)
				}
				var stderr bytes.Buffer
				if code := run([]string{"check-config", "--config", path}, nil, io.Discard, &stderr); code != cmdline.ExitBadInput {
					t.Errorf("check-config exit %d, want %d", code, cmdline.ExitBadInput)
				}
				if !strings.Contains(stderr.String(), tt.wantErr) {
					t.Errorf("check-config said %q, want it to say %q", stderr.String(), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("config %q: %v", tt.yaml, err)
			}
			if g := cfg.Outbox.AskGrace(); g != tt.wantGrace {
				t.Errorf("grace = %s, want %s", g, tt.wantGrace)
			}
			got := cfg.Outbox.Delivery()
			if len(got.Pacing) != len(tt.want) {
				t.Errorf("pacing = %+v, want %+v", got.Pacing, tt.want)
			}
			for k, w := range tt.want {
				if got.Pacing[k] != w {
					t.Errorf("pacing[%s] = %+v, want %+v", k, got.Pacing[k], w)
				}
			}
		})
	}
}
