package bench

import (
	"fmt"
	"strings"
)

// Profile names the bridge configuration a run starts.
type Profile string

const (
	// ProfileDefault is what users run: `bridge serve` with no
	// configuration file, so the web and cli channels on the default
	// route and the default log level.
	ProfileDefault Profile = "default"
	// ProfileLight is the lighter configuration the tool used to run:
	// the cli channel alone on the default route, the web channel off
	// and logs at warn.
	ProfileLight Profile = "light"
)

// ParseProfile reads a --config value: "default" or "light".
func ParseProfile(s string) (Profile, error) {
	switch p := Profile(s); p {
	case ProfileDefault, ProfileLight:
		return p, nil
	}
	return "", fmt.Errorf("--config %q: use default (what bridge serve runs with no config file) or light (cli only, web off, warn logs)", s)
}

// lightConfig is the body of the light profile.
const lightConfig = `log:
  level: warn
channels:
  web:
    disabled: true
routes:
  default:
    targets: [cli]
`

// capacityConfig lifts the caps that runs holding many questions at once
// would hit: no connection cap below the open-file limit (the waiters run
// holds 10,000 long-polls and the asking client's connections, over the
// default cap of 10,000), and, since every agent of a run is one agent to
// the bridge (no keys), the largest pending cap allowed. Neither changes
// the work done per question.
const capacityConfig = `server:
  max_connections: 1000000
limits:
  pending_per_agent: 1000000
`

// bridgeConfig returns the configuration file a bridge of the run gets
// ("" for none, as a user running bridge serve without one) and the words
// that describe it in reports.
func bridgeConfig(p Profile, capacity bool, extra string) (file, desc string) {
	var b strings.Builder
	words := []string{string(p)}
	if p == ProfileLight {
		b.WriteString(lightConfig)
		words[0] = "light (cli only, web off, warn logs)"
	} else {
		words[0] = "default (web and cli, info logs)"
	}
	if capacity {
		b.WriteString(capacityConfig)
		words = append(words, "caps lifted")
	}
	if extra != "" {
		b.WriteString(extra)
		words = append(words, "run-specific settings")
	}
	if b.Len() == 0 {
		words = append(words, "no config file")
	}
	return b.String(), strings.Join(words, ", ")
}
