package routes

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// routes.NAME.unwatched takes "wait" (the default) and "escalate", and
// escalating needs escalation steps; anything else is refused with the
// key and the values that work.
func TestValidateUnwatched(t *testing.T) {
	channels := map[string]bool{"cli": true, "web": true}
	steps := Policy{Escalate: []Escalate{{After: "10m", Route: "oncall"}}}
	cases := []struct {
		name  string
		route Route
		want  string // "" when the section is valid
	}{
		{"unset", Route{Targets: []string{"web"}}, ""},
		{"wait", Route{Targets: []string{"web"}, Unwatched: "wait"}, ""},
		{"escalate with steps", Route{Targets: []string{"web"}, Unwatched: "escalate", Policy: steps}, ""},
		{"escalate without steps", Route{Targets: []string{"web"}, Unwatched: "escalate"},
			`routes.default.unwatched: "escalate" needs escalate: steps on the route`},
		{"unknown value", Route{Targets: []string{"web"}, Unwatched: "page"},
			`routes.default.unwatched: "page" is not one of "wait" (the default) and "escalate"`},
		{"wrong case", Route{Targets: []string{"web"}, Unwatched: "Escalate", Policy: steps},
			`routes.default.unwatched: "Escalate" is not one of`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{"default": tc.route, "oncall": {Targets: []string{"cli:oncall"}}}
			err := c.Validate(channels, 30*time.Minute, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if got := c.Broker()["default"].Unwatched; got != tc.route.Unwatched {
					t.Fatalf("broker route's unwatched = %q, want %q", got, tc.route.Unwatched)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant it to say %q", err, tc.want)
			}
		})
	}
	if broker.UnwatchedWait != "wait" || broker.UnwatchedEscalate != "escalate" {
		t.Fatal("the documented values changed")
	}
}
