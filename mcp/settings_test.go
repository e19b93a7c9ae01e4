package mcp_test

import (
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/askbridge/askbridge/mcp"
)

// The progress interval has one range, from the file or the flag.
func TestSettingsValidate(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                      "",
		100 * time.Millisecond: "",
		5 * time.Minute:        "",
		99 * time.Millisecond:  "mcp.progress_every: 99ms is outside 100ms–5m (clients time out without progress)",
		6 * time.Minute:        "mcp.progress_every: 6m0s is outside 100ms–5m (clients time out without progress)",
	} {
		err := mcp.Settings{ProgressEvery: mcp.ProgressInterval(d)}.Validate()
		if (err == nil) != (want == "") || (err != nil && err.Error() != want) {
			t.Errorf("%s: %v, want %q", d, err, want)
		}
	}
}

// mcp.session_idle is 1s–24h, in code and in the file; a bad value names
// the key and leaves the settings as they were.
func TestSessionIdleSetting(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                      "",
		time.Second:            "",
		24 * time.Hour:         "",
		999 * time.Millisecond: "mcp.session_idle: 999ms is outside 1s–24h",
		-time.Minute:           "mcp.session_idle: -1m0s is outside 1s–24h",
		25 * time.Hour:         "mcp.session_idle: 25h0m0s is outside 1s–24h",
	} {
		err := mcp.Settings{SessionIdle: mcp.IdleTimeout(d)}.Validate()
		if (err == nil) != (want == "") || (err != nil && err.Error() != want) {
			t.Errorf("%s: %v, want %q", d, err, want)
		}
	}
	for _, tt := range []struct {
		yaml string
		want time.Duration
		err  string
	}{
		{yaml: "session_idle: 10m", want: 10 * time.Minute},
		{yaml: "session_idle: 1s", want: time.Second},
		{yaml: "session_idle: 24h", want: 24 * time.Hour},
		{yaml: "session_idle: 0s", err: "line 1: mcp.session_idle: 0s is outside 1s–24h"},
		{yaml: "session_idle: 500ms", err: "line 1: mcp.session_idle: 500ms is outside 1s–24h"},
		{yaml: "session_idle: -5m", err: "line 1: mcp.session_idle: -5m0s is outside 1s–24h"},
		{yaml: "session_idle: 2d", err: "line 1: mcp.session_idle: 48h0m0s is outside 1s–24h"},
		{yaml: "session_idle: soon", err: `line 1: mcp.session_idle: "soon" is not a duration (use e.g. 10m)`},
	} {
		s := mcp.Settings{SessionIdle: mcp.IdleTimeout(time.Hour)}
		err := yaml.Unmarshal([]byte(tt.yaml), &s)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.yaml, err, tt.err)
			}
			if time.Duration(s.SessionIdle) != time.Hour {
				t.Errorf("%s changed the setting to %s", tt.yaml, time.Duration(s.SessionIdle))
			}
			continue
		}
		if err != nil || time.Duration(s.SessionIdle) != tt.want {
			t.Errorf("%s: %s, %v; want %s", tt.yaml, time.Duration(s.SessionIdle), err, tt.want)
		}
	}
}

// A negative cap in code is refused; zero is the default.
func TestSessionsPerAgentConfig(t *testing.T) {
	asker := mcp.Fixed(nil)
	if _, err := mcp.New(mcp.Config{Asker: asker, SessionsPerAgent: -1}); err == nil || err.Error() != "mcp: Config.SessionsPerAgent is -1, want at least 1 (or 0 for 16)" {
		t.Fatalf("negative cap: %v", err)
	}
	if _, err := mcp.New(mcp.Config{Asker: asker}); err != nil {
		t.Fatalf("zero cap: %v", err)
	}
}

// mcp.embed_files_max is a whole number of bytes within 0–10 MiB, in code
// and in the file; unset is the default, 0 embeds no file but pictures.
func TestEmbedFilesMaxSetting(t *testing.T) {
	for _, tt := range []struct {
		yaml  string
		limit int64 // Settings.EmbedLimit
		err   string
	}{
		{yaml: "progress_every: 10s", limit: 0},
		{yaml: "embed_files_max: 0", limit: -1},
		{yaml: "embed_files_max: 1", limit: 1},
		{yaml: "embed_files_max: 10485760", limit: 10 << 20},
		{yaml: "embed_files_max: 10485761", err: "line 1: mcp.embed_files_max: 10485761 is outside 0–10485760 bytes (0 embeds no file but pictures)"},
		{yaml: "embed_files_max: -1", err: "line 1: mcp.embed_files_max: -1 is outside 0–10485760 bytes"},
		{yaml: "embed_files_max: 1MiB", err: `line 1: mcp.embed_files_max: "1MiB" is not a whole number of bytes (such as 1048576)`},
		{yaml: "embed_files_max: [1]", err: "line 1: mcp.embed_files_max"},
	} {
		var s mcp.Settings
		err := yaml.Unmarshal([]byte(tt.yaml), &s)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.yaml, err, tt.err)
			}
			continue
		}
		if err != nil || s.EmbedLimit() != tt.limit || s.Validate() != nil {
			t.Errorf("%s: limit %d, %v; want %d", tt.yaml, s.EmbedLimit(), err, tt.limit)
		}
	}
}
