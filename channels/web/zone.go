package web

import (
	"net/http"
	"time"
)

// maxZoneName bounds the zone name a page sends; IANA names are far
// shorter.
const maxZoneName = 64

// zoneOf is the time zone the page of who shows its times in: the
// person's own (people[].timezone), else the one the browser sends
// (?tz=Europe/Lisbon, its Intl zone), else the bridge's. A zone name the
// bridge does not know falls back as if none were sent.
func (c *Channel) zoneOf(who identity, r *http.Request) *time.Location {
	if l := who.Person.Location(); l != nil {
		return l
	}
	if name := r.URL.Query().Get("tz"); name != "" && name != "Local" && len(name) <= maxZoneName {
		if l, err := time.LoadLocation(name); err == nil {
			return l
		}
	}
	return c.loc
}
