package broker

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Policy is the set of team policies of a route, which a question may
// tighten but never loosen.
type Policy struct {
	// Quorum is how many distinct responders must choose the same option
	// before the question resolves (0 or 1: the first answer decides).
	Quorum int `json:"quorum,omitempty"`
	// QuorumDeny is how many declines (or Deny votes) end the question as
	// declined; 0 means one.
	QuorumDeny int `json:"quorum_deny,omitempty"`
	// ForbidRequester refuses answers from the people the question is
	// asked for (the agent key's on_behalf_of and the question's
	// requested_by).
	ForbidRequester bool `json:"forbid_requester,omitempty"`
	// Snooze lets responders move the deadline.
	Snooze *SnoozePolicy `json:"snooze,omitempty"`
	// TimeoutMax bounds how far from its creation snoozes may move a
	// deadline (MaxTimeout when zero).
	TimeoutMax Duration `json:"timeout_max,omitempty"`
	// Escalate lists the escalation steps of a pending question
	// (escalate.go); only a route sets them.
	Escalate []EscalationStep `json:"escalate,omitempty"`
}

// SnoozePolicy says by how much a snooze moves the deadline, and how
// often a question may be snoozed.
type SnoozePolicy struct {
	By  Duration `json:"by"`
	Max int      `json:"max"`
}

// PolicyState is what a question's policies recorded while it was
// pending. Rev counts the changes; every change is a compare-and-set on
// it (PolicyStore.Amend).
type PolicyState struct {
	Rev     int64    `json:"rev,omitempty"`
	Votes   []Vote   `json:"votes,omitempty"`
	Snoozes []Snooze `json:"snoozes,omitempty"`
	// Escalations are the escalation steps taken, and EscalateAt is when
	// the next one is due (zero when none is left); stores index it.
	Escalations []Escalation `json:"escalations,omitempty"`
	EscalateAt  time.Time    `json:"escalate_at,omitzero"`
	// Notes are what people wrote on a question with a quorum without
	// voting: not ready (/discuss) before they chose an option.
	Notes []Note `json:"notes,omitempty"`
}

// Note is one person's text on a question with a quorum that is no vote.
// NotReady marks a /discuss.
type Note struct {
	By       Responder `json:"by"`
	Text     string    `json:"text,omitempty"`
	NotReady bool      `json:"not_ready,omitempty"`
	At       time.Time `json:"at"`
}

// Vote is one responder's standing choice on a question with a quorum.
// Deny marks a decline or a Deny option.
type Vote struct {
	By     Responder `json:"by"`
	Choice string    `json:"choice"`
	Deny   bool      `json:"deny,omitempty"`
	Reason string    `json:"reason,omitempty"`
	// Note is the text the person wrote beside the option, or later, on
	// this vote; it does not change what the vote counts for.
	Note   string    `json:"note,omitempty"`
	Answer *Answer   `json:"answer,omitempty"`
	At     time.Time `json:"at"`
}

// Snooze is one move of the deadline.
type Snooze struct {
	By        Responder `json:"by"`
	At        time.Time `json:"at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// denyLabels are option labels whose choice counts as a deny vote.
var denyLabels = []string{"deny", "reject"}

// quorum returns the number of matching votes that resolve q (1 without
// a quorum).
func (p Policy) quorum() int { return max(p.Quorum, 1) }

// denyQuorum returns the number of deny votes that decline q.
func (p Policy) denyQuorum() int { return max(p.QuorumDeny, 1) }

// voting reports whether answers to q are votes.
func (q *Question) voting() bool { return q.Policy.quorum() > 1 || q.Policy.denyQuorum() > 1 }

// ValidatePolicy checks the policy of a route: field names it in errors
// ("routes.prod.policy"). responders are the route's responders; people
// is the directory that says how many people they name. A quorum counts
// people, so an account that belongs to no person counts for nobody.
func ValidatePolicy(field string, p Policy, responders []string, people *People) error {
	return validatePolicy(field, p, responders, people, nil)
}

// validatePolicy is ValidatePolicy leaving out of the count the people in
// except (the requesters, when the policy forbids them).
func validatePolicy(field string, p Policy, responders []string, people *People, except map[string]bool) error {
	if p.Quorum < 0 {
		return fieldErr(field+".quorum", "%d is less than 1: write 1 or more (2 for two-person approval)", p.Quorum)
	}
	if p.QuorumDeny < 0 {
		return fieldErr(field+".quorum_deny", "%d is less than 1", p.QuorumDeny)
	}
	if p.Quorum > 1 && len(responders) == 0 {
		return fieldErr(field+".quorum", "a quorum of %d needs responders: list at least %d people (person:ana, group:sre), or a role", p.Quorum, p.Quorum)
	}
	n, open := CountPeople(responders, people, except)
	besides := ""
	if len(except) > 0 {
		besides = " besides the requester"
	}
	if p.Quorum > 1 && !open && n < p.Quorum {
		return fieldErr(field+".quorum", "%d is more than the %d people the responders name%s: the question could never resolve (a quorum counts people: link each account to a person under people)", p.Quorum, n, besides)
	}
	if p.QuorumDeny > 1 && !open && n < p.QuorumDeny {
		return fieldErr(field+".quorum_deny", "%d is more than the %d people the responders name%s", p.QuorumDeny, n, besides)
	}
	if s := p.Snooze; s != nil {
		if time.Duration(s.By) < time.Minute {
			return fieldErr(field+".snooze.by", "%s is shorter than 1m", time.Duration(s.By))
		}
		if s.Max < 1 {
			return fieldErr(field+".snooze.max", "%d is less than 1: remove snooze to forbid snoozing", s.Max)
		}
	}
	if d := time.Duration(p.TimeoutMax); d < 0 || d > MaxTimeout {
		return fieldErr(field+".timeout_max", "%s is outside 0–7d", d)
	}
	return nil
}

// tighten returns the policy of a question: the route's, tightened by
// the question's own, or an error naming the first loosening.
func tighten(route Policy, own *Policy) (Policy, error) {
	if own == nil {
		return route, nil
	}
	p := route
	if own.Escalate != nil {
		return p, fieldErr("policy.escalate", "escalation is set on the route only")
	}
	if own.Quorum != 0 {
		if own.Quorum < route.quorum() {
			return p, fieldErr("policy.quorum", "%d is less than the route's quorum of %d: a question may tighten the route's policies, never loosen them", own.Quorum, route.quorum())
		}
		p.Quorum = own.Quorum
	}
	if own.QuorumDeny != 0 {
		if own.QuorumDeny > route.denyQuorum() {
			return p, fieldErr("policy.quorum_deny", "%d is more than the route's %d: a question may tighten the route's policies, never loosen them", own.QuorumDeny, route.denyQuorum())
		}
		p.QuorumDeny = own.QuorumDeny
	}
	if own.ForbidRequester {
		p.ForbidRequester = true
	}
	if s := own.Snooze; s != nil {
		r := route.Snooze
		if r == nil {
			return p, fieldErr("policy.snooze", "the route allows no snooze: a question may tighten the route's policies, never loosen them")
		}
		if s.Max > r.Max || s.By > r.By {
			return p, fieldErr("policy.snooze", "by %s up to %d times is more than the route's by %s up to %d times: a question may tighten the route's policies, never loosen them", time.Duration(s.By), s.Max, time.Duration(r.By), r.Max)
		}
		p.Snooze = s
	}
	if own.TimeoutMax != 0 {
		if route.TimeoutMax != 0 && own.TimeoutMax > route.TimeoutMax {
			return p, fieldErr("policy.timeout_max", "%s is more than the route's %s: a question may tighten the route's policies, never loosen them", time.Duration(own.TimeoutMax), time.Duration(route.TimeoutMax))
		}
		p.TimeoutMax = own.TimeoutMax
	}
	return p, nil
}

// requester reports whether in's user is one of the people q is asked
// for: entries "user-id", "channel:user-id" or "person:person-id". When
// in's account belongs to a person, every account of that person is the
// requester, in every channel.
func (q *Question) requester(in Inbound, people *People) bool {
	for _, e := range q.RequestedBy {
		if in.Person != nil && slices.Contains(requesterPeople(e, people), in.Person.ID) {
			return true
		}
		ch, user, ok := strings.Cut(e, ":")
		if !ok {
			user, ch = ch, ""
		}
		if ch != "person" && user == in.User && (ch == "" || ch == in.Channel) {
			return true
		}
	}
	return false
}

// requesterPeople returns the ids of the people a requested_by entry
// names.
func requesterPeople(e string, people *People) []string {
	r, err := parseResponder(e)
	if err != nil {
		return nil
	}
	ids, _ := r.people(people)
	return ids
}

// requesterSet returns the ids of the people q is asked for.
func requesterSet(entries []string, people *People) map[string]bool {
	out := map[string]bool{}
	for _, e := range entries {
		for _, id := range requesterPeople(e, people) {
			out[id] = true
		}
	}
	return out
}

// validateRequestedBy checks requested_by entries: "user-id",
// "channel:user-id" or "person:person-id".
func validateRequestedBy(field string, entries []string, people *People) error {
	for i, e := range entries {
		r, err := parseResponder(e)
		switch {
		case err != nil:
		case r.kind == kindRole || r.kind == kindGroup:
			err = fmt.Errorf("%q names a role or a group: name a person, as person:person-id, user-id or channel:user-id", e)
		default:
			err = r.known(e, people)
		}
		if err != nil {
			return fieldErr(fmt.Sprintf("%s[%d]", field, i), "%s", err.Error())
		}
	}
	return nil
}

// voters lists every voter of q's outcome when q has a quorum of more
// than one; nil otherwise.
func (q *Question) voters() []Responder {
	if !q.voting() || !q.Status.Terminal() {
		return nil
	}
	var out []Responder
	for _, v := range q.State.Votes {
		switch {
		case q.Status == StatusDeclined && v.Deny:
		case q.Status == StatusAnswered && !v.Deny && v.Choice == q.winningChoice():
		default:
			continue
		}
		out = append(out, v.By)
	}
	return out
}

// winningChoice is the choice of the answer that resolved q.
func (q *Question) winningChoice() string {
	if len(q.Prompts) == 0 {
		return ""
	}
	a, ok := q.Answers[q.Prompts[0].Question]
	if !ok {
		return ""
	}
	return AnswerValue(a)
}

// isDeny reports whether answer a picks a Deny option.
func isDeny(a Answer) bool {
	return len(a.Selected) == 1 && slices.Contains(denyLabels, strings.ToLower(strings.TrimSuffix(a.Selected[0], RecommendedSuffix)))
}
