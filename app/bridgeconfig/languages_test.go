package bridgeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLocaleConfig: people[].locale, routes.X.locale and channels.X.locale
// take supported BCP 47 tags (normalised to the locale they name); an
// unknown one is an error naming the key, the value and what is supported.
func TestLocaleConfig(t *testing.T) {
	const base = "people:\n  - id: ana\n    accounts: [\"telegram:42\"]\n    locale: %s\nroutes:\n  default:\n    targets: [web]\n    locale: %s\nchannels:\n  web:\n    locale: %s\n"
	for _, tc := range []struct {
		name, person, route, channel string
		err                          string
	}{
		{"all set", "ja-JP", "de", "en-XA", ""},
		{"all empty", `""`, `""`, `""`, ""},
		{"a person's", "fr", "de", "ja", `people[0].locale: "fr" is not a supported language; supported: en, de, ja, en-XA`},
		{"a route's", "de", "xx-!!", "ja", `routes.default.locale: "xx-!!" is not a language tag`},
		{"a channel's", "de", "de", "klingon", `channels.web.locale: "klingon" is not a`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "askbridge.yaml")
			text := strings.Replace(strings.Replace(strings.Replace(base, "%s", tc.person, 1), "%s", tc.route, 1), "%s", tc.channel, 1)
			if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path)
			if err == nil {
				err = cfg.Finish()
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.name == "all set" {
				if got := cfg.Directory.Person("ana").Locale; got != "ja" {
					t.Errorf("person locale %q, want ja", got)
				}
				if got := cfg.Routes.Broker()["default"].Locale; got != "de" {
					t.Errorf("route locale %q, want de", got)
				}
				if got := cfg.Channels.Locales()["web"]; got != "en-XA" {
					t.Errorf("channel locale %q, want en-XA", got)
				}
			}
		})
	}
}
