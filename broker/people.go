package broker

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/askbridge/askbridge/internal/i18n"
)

// Person is one human who may answer, with every platform account that
// is theirs. Policies speak of people: a quorum counts distinct people,
// and forbid_requester refuses every account of the requester.
type Person struct {
	// ID is the person's id ([a-z0-9._-]), written "person:ana" in
	// responder lists.
	ID string `yaml:"id" json:"id"`
	// Name is shown to others ("Ana Lima").
	Name string `yaml:"name" json:"name,omitempty"`
	// Accounts are the person's platform accounts, "channel:user-id"
	// ("slack:U0000002", "telegram:42", "cli:ana"). Every person also
	// has the web inbox account "web:<id>", which signing in gives.
	Accounts []string `yaml:"accounts" json:"accounts,omitempty"`
	// WebTokenEnv names the environment variable holding the person's
	// own web inbox token (optional).
	WebTokenEnv string `yaml:"web_token_env" json:"-"`
	// Email matches a single sign-on identity (optional).
	Email string `yaml:"email" json:"-"`
	// Locale is the language the person reads ("de", "ja"; docs/languages.md):
	// their direct messages and their web inbox are in it.
	Locale string `yaml:"locale" json:"locale,omitempty"`
	// Timezone is the IANA name of the person's time zone
	// ("Asia/Tokyo"), in which the web inbox and the replies to their
	// commands show times (optional: else their browser's zone, or the
	// bridge's).
	Timezone string `yaml:"timezone" json:"timezone,omitempty"`

	// groups are the ids of the groups the person is in, set by
	// NewPeople.
	groups []string
	// loc is Timezone loaded, set by NewPeople.
	loc *time.Location
}

// PersonRef names the person behind an action: id and display name.
type PersonRef struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// WebChannel is the name of the web inbox's channel; a person signed in
// there acts as the account "web:<person id>".
const WebChannel = "web"

// personIDPattern is what a person or group id may look like.
var personIDPattern = regexp.MustCompile(`^[a-z0-9._-]{1,64}$`)

// People is the directory of people and groups: which person an account
// belongs to, and who is in a group. The zero value (and nil) knows
// nobody. It is read-only once built, and safe for concurrent use.
type People struct {
	byID      map[string]*Person
	byAccount map[string]*Person
	groups    map[string][]string
	order     []string
}

// NewPeople builds the directory, or returns every problem found, each
// naming the entry ("people[1].accounts[0]: …"): a duplicate id, an id
// that is not [a-z0-9._-], an account listed under two people or not
// written channel:user-id, a group that is empty, names itself, names an
// unknown person or group, or has the id of a person.
func NewPeople(people []Person, groups map[string][]string) (*People, error) {
	d := &People{byID: map[string]*Person{}, byAccount: map[string]*Person{}, groups: map[string][]string{}}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	owner := map[string]string{}
	for i, p := range people {
		f := fmt.Sprintf("people[%d]", i)
		if !personIDPattern.MatchString(p.ID) {
			bad("%s.id: %q is not an id: use 1–64 of a-z, 0-9, '.', '_' and '-' (no spaces or capitals)", f, p.ID)
			continue
		}
		if _, dup := d.byID[p.ID]; dup {
			bad("%s.id: %q is listed twice", f, p.ID)
			continue
		}
		if err := checkText("", p.Name, kindName); err != nil || len(p.Name) > 80 {
			bad("%s.name: %q must be one line of at most 80 characters", f, p.Name)
		}
		pp := p
		if l, err := i18n.Parse(p.Locale); err != nil {
			bad("%s.locale: %v", f, err)
		} else {
			pp.Locale = l
		}
		pp.Accounts = slices.Clone(p.Accounts)
		loc, err := loadZone(p.Timezone)
		if err != nil {
			bad("%s.timezone (person %s): %v", f, p.ID, err)
		}
		pp.loc = loc
		d.byID[p.ID] = &pp
		d.order = append(d.order, p.ID)
		web := WebChannel + ":" + p.ID
		for k, acc := range append(slices.Clone(p.Accounts), web) {
			ch, user, ok := strings.Cut(acc, ":")
			if k < len(p.Accounts) {
				af := fmt.Sprintf("%s.accounts[%d]", f, k)
				if !ok || ch == "" || user == "" || strings.ContainsFunc(acc, unicode.IsSpace) || ch == "role" || user == "role" {
					bad("%s: %q is not an account: write channel:user-id, as \"slack:U0000002\" or \"telegram:42\"", af, acc)
					continue
				}
				if ch == WebChannel {
					bad("%s: %q: the web inbox account of a person is web:%s, given by signing in; leave it out", af, acc, p.ID)
					continue
				}
			}
			if prev, taken := owner[acc]; taken && prev != p.ID {
				bad("%s.accounts: %q is listed under both %q and %q: an account belongs to one person", f, acc, prev, p.ID)
				continue
			}
			owner[acc] = p.ID
			d.byAccount[acc] = &pp
		}
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	slices.Sort(names)
	for _, g := range names {
		members := groups[g]
		f := "groups." + g
		switch {
		case !personIDPattern.MatchString(g):
			bad("%s: %q is not a group id: use 1–64 of a-z, 0-9, '.', '_' and '-'", f, g)
			continue
		case d.byID[g] != nil:
			bad("%s: %q is also a person's id: give the group another name", f, g)
			continue
		case len(members) == 0:
			bad("%s: the group is empty: list at least one person", f)
			continue
		}
		for k, m := range members {
			switch {
			case m == g:
				bad("%s[%d]: the group names itself", f, k)
			case groups[m] != nil:
				bad("%s[%d]: %q is a group: list its people instead (groups do not nest)", f, k, m)
			case d.byID[m] == nil:
				bad("%s[%d]: %q is not a person listed under people", f, k, m)
			}
		}
		d.groups[g] = slices.Clone(members)
		for _, m := range members {
			if p := d.byID[m]; p != nil && !slices.Contains(p.groups, g) {
				p.groups = append(p.groups, g)
			}
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return d, nil
}

// Person returns the person with id, or nil.
func (d *People) Person(id string) *Person {
	if d == nil {
		return nil
	}
	return d.byID[id]
}

// Of returns the person an account belongs to ("slack", "U0000002"), or
// nil when it belongs to nobody.
func (d *People) Of(channel, user string) *Person {
	if d == nil {
		return nil
	}
	return d.byAccount[channel+":"+user]
}

// Group returns the ids of a group's people, or nil for an unknown group.
func (d *People) Group(id string) []string {
	if d == nil {
		return nil
	}
	return d.groups[id]
}

// All returns every person, in the order configured.
func (d *People) All() []*Person {
	if d == nil {
		return nil
	}
	out := make([]*Person, len(d.order))
	for i, id := range d.order {
		out[i] = d.byID[id]
	}
	return out
}

// InGroup reports whether p is in group id.
func (p *Person) InGroup(id string) bool { return p != nil && slices.Contains(p.groups, id) }

// Ref returns the reference to p shown with an action: id and name.
func (p *Person) Ref() *PersonRef {
	if p == nil {
		return nil
	}
	return &PersonRef{ID: p.ID, Name: p.Name}
}

// DisplayName is the person's name, or the id when no name is set.
func (p *Person) DisplayName() string {
	if p.Name != "" {
		return p.Name
	}
	return p.ID
}
