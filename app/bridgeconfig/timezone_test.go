package bridgeconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPeopleTimezone: a person's timezone is an IANA name, checked when
// the configuration is; a bad one is an error naming the person and the
// value.
func TestPeopleTimezone(t *testing.T) {
	for _, c := range []struct{ zone, want string }{
		{"Asia/Tokyo", ""},
		{"", ""},
		{"Mars/Olympus", `people[0].timezone (person ana): "Mars/Olympus" is not a time zone: write an IANA name such as Europe/Lisbon`},
		{"+09:00", `people[0].timezone (person ana): "+09:00" is not a time zone`},
		{"Local", `people[0].timezone (person ana): "Local" is not a time zone`},
	} {
		t.Run(c.zone, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			body := "people:\n  - {id: ana, timezone: \"" + c.zone + "\"}\nroutes:\n  default:\n    targets: [web]\n"
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			err = cfg.Finish()
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("timezone %q: error %v, want %q", c.zone, err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			loc := cfg.Directory.Person("ana").Location()
			switch {
			case c.zone == "" && loc != nil:
				t.Fatalf("no timezone gave the location %v, want none", loc)
			case c.zone != "" && (loc == nil || loc.String() != c.zone):
				t.Fatalf("timezone %q gave the location %v", c.zone, loc)
			}
		})
	}
}
