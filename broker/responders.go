package broker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// responder is one parsed responder entry. The entry forms are "user-id",
// "channel:user-id", "role:role-id", "channel:role:role-id",
// "person:person-id" and "group:group-id"; an account or role entry
// without a channel applies on every channel of the question's route, and
// a person or group entry on every account of its people.
type responder struct {
	channel string
	kind    responderKind
	id      string
}

// responderKind says what a responder entry names.
type responderKind int

const (
	kindAccount responderKind = iota
	kindRole
	kindPerson
	kindGroup
)

// entryForms lists the forms of a responder entry, for error messages.
const entryForms = "user-id, channel:user-id, role:role-id, channel:role:role-id, person:person-id or group:group-id"

// parseResponder reads one entry, or says what is wrong with it.
func parseResponder(e string) (responder, error) {
	if strings.TrimSpace(e) == "" {
		return responder{}, fmt.Errorf("must not be empty")
	}
	if err := checkText("", e, kindName); err != nil {
		return responder{}, fmt.Errorf("%s", err.Error())
	}
	if strings.ContainsFunc(e, unicode.IsSpace) {
		return responder{}, fmt.Errorf("%q contains a space; write %s", e, entryForms)
	}
	parts := strings.Split(e, ":")
	var r responder
	switch {
	case len(parts) == 1:
		r.id = parts[0]
	case len(parts) == 2 && parts[0] == "role":
		r.kind, r.id = kindRole, parts[1]
	case len(parts) == 2 && parts[0] == "person":
		r.kind, r.id = kindPerson, parts[1]
	case len(parts) == 2 && parts[0] == "group":
		r.kind, r.id = kindGroup, parts[1]
	case len(parts) == 2:
		r.channel, r.id = parts[0], parts[1]
	case len(parts) == 3 && parts[1] == "role":
		r.channel, r.kind, r.id = parts[0], kindRole, parts[2]
	default:
		return responder{}, fmt.Errorf("%q is not a responder entry: write %s", e, entryForms)
	}
	if r.id == "" || (len(parts) > 1 && parts[0] == "") {
		return responder{}, fmt.Errorf("%q has an empty part: write %s", e, entryForms)
	}
	return r, nil
}

// known checks that a person or group entry names one the directory has.
func (r responder) known(e string, d *People) error {
	switch {
	case r.kind == kindPerson && d.Person(r.id) == nil:
		return fmt.Errorf("%q names no person listed under people", e)
	case r.kind == kindGroup && d.Group(r.id) == nil:
		return fmt.Errorf("%q names no group listed under groups", e)
	}
	return nil
}

// people returns the ids of the people r names, and whether it names
// people the directory cannot list (a role).
func (r responder) people(d *People) (ids []string, open bool) {
	switch r.kind {
	case kindRole:
		return nil, true
	case kindPerson:
		if d.Person(r.id) != nil {
			return []string{r.id}, false
		}
	case kindGroup:
		return d.Group(r.id), false
	default:
		for _, p := range d.All() {
			for _, acc := range p.Accounts {
				ch, user, _ := strings.Cut(acc, ":")
				if user == r.id && (r.channel == "" || r.channel == ch) {
					ids = append(ids, p.ID)
				}
			}
		}
	}
	return ids, false
}

// matches reports whether in's account, roles or person is one r names.
func (r responder) matches(in Inbound) bool {
	switch r.kind {
	case kindPerson:
		return in.Person != nil && in.Person.ID == r.id
	case kindGroup:
		return in.Person.InGroup(r.id)
	}
	if r.channel != "" && r.channel != in.Channel {
		return false
	}
	if r.kind == kindRole {
		return slices.Contains(in.Roles, r.id)
	}
	return r.id == in.User
}

// CountPeople returns how many distinct people the responder entries
// name, leaving out the people in except, and whether the entries also
// name people no directory can count (a platform role). Accounts that
// belong to nobody count for nobody.
func CountPeople(entries []string, d *People, except map[string]bool) (n int, open bool) {
	seen := map[string]bool{}
	for _, e := range entries {
		r, err := parseResponder(e)
		if err != nil {
			continue
		}
		ids, o := r.people(d)
		open = open || o
		for _, id := range ids {
			if !except[id] && !seen[id] {
				seen[id] = true
				n++
			}
		}
	}
	return n, open
}

// covers reports whether every person r allows is also allowed by route
// entry w: the same user or role, and w on every channel or on r's.
func (w responder) covers(r responder, d *People) bool {
	if w.kind == r.kind && w.id == r.id && (w.channel == "" || w.channel == r.channel) {
		return true
	}
	if w.kind != kindPerson && w.kind != kindGroup || r.kind == kindRole {
		return false
	}
	// A person or group entry of the route covers the entries that name
	// only people it names.
	mine, _ := w.people(d)
	theirs, _ := r.people(d)
	if r.kind == kindAccount && r.channel == "" || len(theirs) == 0 {
		return false
	}
	for _, id := range theirs {
		if !slices.Contains(mine, id) {
			return false
		}
	}
	return true
}

// ValidateResponders checks responder entries against the targets of their
// route: each entry is well formed and any channel it names is one the
// route posts to (otherwise nobody could ever answer). field names the list
// in errors ("responders", "routes.ops.responders"). A person or group
// entry must name one that people knows.
func ValidateResponders(field string, entries []string, targets []Target, people *People) error {
	channels := targetChannels(targets)
	for i, e := range entries {
		f := fmt.Sprintf("%s[%d]", field, i)
		r, err := parseResponder(e)
		if err == nil {
			err = r.known(e, people)
		}
		if err != nil {
			return fieldErr(f, "%s", err.Error())
		}
		if r.channel != "" && !slices.Contains(channels, r.channel) {
			return fieldErr(f, "channel %q is not among the route's targets (%s): nobody could answer from there", r.channel, cmp.Or(strings.Join(channels, ", "), "none"))
		}
	}
	return nil
}

// validateNarrowing checks that a question's own responders only narrow
// its route's: each entry must allow nobody the route's entries do not.
// An entry names a user or role, on one channel or on every channel the
// route posts to; it narrows when the route allows that user or role on
// each of those channels. A route with no responders lets anyone in its
// chats answer, so any entry narrows it.
func validateNarrowing(field string, entries []string, route Route, d *People) error {
	if len(route.Responders) == 0 {
		return nil
	}
	var allowed []responder
	for _, e := range route.Responders {
		if w, err := parseResponder(e); err == nil {
			allowed = append(allowed, w)
		}
	}
	channels := targetChannels(route.Targets)
	for i, e := range entries {
		f := fmt.Sprintf("%s[%d]", field, i)
		r, err := parseResponder(e)
		if err != nil {
			return fieldErr(f, "%s", err.Error())
		}
		on := []string{r.channel}
		if r.channel == "" && (r.kind == kindAccount || r.kind == kindRole) {
			on = channels
		}
		for _, ch := range on {
			one := responder{channel: ch, kind: r.kind, id: r.id}
			if !slices.ContainsFunc(allowed, func(w responder) bool { return w.covers(one, d) }) {
				return fieldErr(f, "%q is not one of the route's responders: a question may narrow the route's responders, never widen them", e)
			}
		}
	}
	return nil
}

// targetChannels lists the channels of targets, each once.
func targetChannels(targets []Target) []string {
	var out []string
	for _, t := range targets {
		if !slices.Contains(out, t.Channel) {
			out = append(out, t.Channel)
		}
	}
	return out
}

// ResponderAllowed reports whether in's user may answer, given responder
// entries ("[channel:]user-id", "[channel:]role:role-id",
// "person:person-id", "group:group-id"); an empty list allows everyone in
// the question's chats. A person or group entry matches in.Person, which
// the broker sets from its directory. A malformed entry allows nobody.
func ResponderAllowed(list []string, in Inbound) bool {
	if len(list) == 0 {
		return true
	}
	for _, e := range list {
		if r, err := parseResponder(e); err == nil && r.matches(in) {
			return true
		}
	}
	return false
}
