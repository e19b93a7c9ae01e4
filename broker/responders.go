package broker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// responder is one parsed responder entry. The entry forms are "user-id",
// "channel:user-id", "role:role-id" and "channel:role:role-id"; an entry
// without a channel applies on every channel of the question's route.
type responder struct {
	channel string
	role    bool
	id      string
}

// parseResponder reads one entry, or says what is wrong with it.
func parseResponder(e string) (responder, error) {
	if strings.TrimSpace(e) == "" {
		return responder{}, fmt.Errorf("must not be empty")
	}
	if err := checkText("", e, kindName); err != nil {
		return responder{}, fmt.Errorf("%s", err.Error())
	}
	if strings.ContainsFunc(e, unicode.IsSpace) {
		return responder{}, fmt.Errorf("%q contains a space; write [channel:]user-id or [channel:]role:role-id", e)
	}
	parts := strings.Split(e, ":")
	var r responder
	switch {
	case len(parts) == 1:
		r.id = parts[0]
	case len(parts) == 2 && parts[0] == "role":
		r.role, r.id = true, parts[1]
	case len(parts) == 2:
		r.channel, r.id = parts[0], parts[1]
	case len(parts) == 3 && parts[1] == "role":
		r.channel, r.role, r.id = parts[0], true, parts[2]
	default:
		return responder{}, fmt.Errorf("%q is not a responder entry: write user-id, channel:user-id, role:role-id or channel:role:role-id", e)
	}
	if r.id == "" || (len(parts) > 1 && parts[0] == "") {
		return responder{}, fmt.Errorf("%q has an empty part: write user-id, channel:user-id, role:role-id or channel:role:role-id", e)
	}
	return r, nil
}

// covers reports whether every person r allows is also allowed by route
// entry w: the same user or role, and w on every channel or on r's.
func (w responder) covers(r responder) bool {
	return w.role == r.role && w.id == r.id && (w.channel == "" || w.channel == r.channel)
}

// ValidateResponders checks responder entries against the targets of their
// route: each entry is well formed and any channel it names is one the
// route posts to (otherwise nobody could ever answer). field names the list
// in errors ("responders", "routes.ops.responders").
func ValidateResponders(field string, entries []string, targets []Target) error {
	channels := targetChannels(targets)
	for i, e := range entries {
		f := fmt.Sprintf("%s[%d]", field, i)
		r, err := parseResponder(e)
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
func validateNarrowing(field string, entries []string, route Route) error {
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
		if r.channel == "" {
			on = channels
		}
		for _, ch := range on {
			one := responder{channel: ch, role: r.role, id: r.id}
			if !slices.ContainsFunc(allowed, func(w responder) bool { return w.covers(one) }) {
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
// entries "[channel:]user-id" or "[channel:]role:role-id"; an empty list
// allows everyone in the question's chats. A malformed entry allows
// nobody.
func ResponderAllowed(list []string, in Inbound) bool {
	if len(list) == 0 {
		return true
	}
	for _, e := range list {
		r, err := parseResponder(e)
		if err != nil || (r.channel != "" && r.channel != in.Channel) {
			continue
		}
		if r.role && slices.Contains(in.Roles, r.id) || !r.role && r.id == in.User {
			return true
		}
	}
	return false
}
