package routes

import (
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
)

// Policy is the team policies of a route (docs/policies.md): a quorum of
// approvers, no self-approval, and snoozes.
type Policy struct {
	// Quorum is how many responders must choose the same option.
	Quorum int `yaml:"quorum"`
	// QuorumDeny is how many declines end a question (default 1).
	QuorumDeny int `yaml:"quorum_deny"`
	// ForbidRequester refuses answers from the person an agent acts for.
	ForbidRequester bool `yaml:"forbid_requester"`
	// Snooze lets responders move the deadline.
	Snooze *Snooze `yaml:"snooze"`
	// TimeoutMax bounds how far snoozes may move a deadline from the
	// question's creation.
	TimeoutMax config.Duration `yaml:"timeout_max"`
	// Escalate lists the escalation steps: after a share of the timeout
	// ("50%") or a duration ("15m"), copies go to another route.
	Escalate []Escalate `yaml:"escalate"`
}

// Escalate is one step of routes.NAME.escalate.
type Escalate struct {
	After string `yaml:"after"`
	Route string `yaml:"route"`
}

// Snooze is routes.NAME.snooze: by how much, how many times.
type Snooze struct {
	By  config.Duration `yaml:"by"`
	Max int             `yaml:"max"`
}

// broker returns the policy as the broker takes it.
func (p Policy) broker() broker.Policy {
	out := broker.Policy{Quorum: p.Quorum, QuorumDeny: p.QuorumDeny, ForbidRequester: p.ForbidRequester, TimeoutMax: broker.Duration(p.TimeoutMax)}
	if p.Snooze != nil {
		out.Snooze = &broker.SnoozePolicy{By: broker.Duration(p.Snooze.By), Max: p.Snooze.Max}
	}
	for _, e := range p.Escalate {
		out.Escalate = append(out.Escalate, broker.EscalationStep{After: e.After, Route: e.Route})
	}
	return out
}

// checkPolicy checks the team policies of route name.
func (r Route) checkPolicy(name string, people *broker.People) error {
	if err := broker.ValidatePolicy("routes."+name, r.broker(), r.Responders, people); err != nil {
		return err
	}
	if tm := time.Duration(r.TimeoutMax); tm != 0 && r.Timeout != 0 && time.Duration(r.Timeout) > tm {
		return fmt.Errorf("routes.%s.timeout_max: %s is shorter than the route's timeout of %s", name, tm, time.Duration(r.Timeout))
	}
	return nil
}
