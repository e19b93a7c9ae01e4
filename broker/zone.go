package broker

import (
	"fmt"
	"time"
)

// Location is the person's own time zone (Person.Timezone), in which
// every time shown to them is written, or nil when they have none and
// the bridge's (or their browser's) applies. A nil Person has none.
func (p *Person) Location() *time.Location {
	if p == nil {
		return nil
	}
	return p.loc
}

// loadZone reads a person's time zone: "" is none; anything else must
// be an IANA name the system's time zone database knows.
func loadZone(name string) (*time.Location, error) {
	if name == "" {
		return nil, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, fmt.Errorf("%q is not a time zone: write an IANA name such as Europe/Lisbon, America/New_York or UTC", name)
	}
	return loc, nil
}

// locationOf is the zone of the times in a reply to in: the person's
// own, else the bridge's.
func (b *Broker) locationOf(in Inbound) *time.Location {
	if l := in.Person.Location(); l != nil {
		return l
	}
	return b.cfg.Location
}

// WhenText shows t as people read a time, in loc: "14:30 UTC" on now's
// day, "Fri 4 Dec 14:30 UTC" on another day of the year, "4 Dec 2027
// 14:30 UTC" in another year; every time a card shows takes this form.
func WhenText(t, now time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return whenText(english, t, now, loc)
}
