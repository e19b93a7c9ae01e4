package main

import (
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/config"
)

// PolicyConfig is the team policies of a route (docs/policies.md): a
// quorum of approvers, no self-approval, and snoozes.
type PolicyConfig struct {
	// Quorum is how many responders must choose the same option.
	Quorum int `yaml:"quorum"`
	// QuorumDeny is how many declines end a question (default 1).
	QuorumDeny int `yaml:"quorum_deny"`
	// ForbidRequester refuses answers from the person an agent acts for.
	ForbidRequester bool `yaml:"forbid_requester"`
	// Snooze lets responders move the deadline.
	Snooze *SnoozeConfig `yaml:"snooze"`
	// TimeoutMax bounds how far snoozes may move a deadline from the
	// question's creation.
	TimeoutMax config.Duration `yaml:"timeout_max"`
}

// SnoozeConfig is routes.NAME.snooze: by how much, how many times.
type SnoozeConfig struct {
	By  config.Duration `yaml:"by"`
	Max int             `yaml:"max"`
}

func (p PolicyConfig) policy() broker.Policy {
	out := broker.Policy{Quorum: p.Quorum, QuorumDeny: p.QuorumDeny, ForbidRequester: p.ForbidRequester, TimeoutMax: broker.Duration(p.TimeoutMax)}
	if p.Snooze != nil {
		out.Snooze = &broker.SnoozePolicy{By: broker.Duration(p.Snooze.By), Max: p.Snooze.Max}
	}
	return out
}

// checkPolicy checks the team policies of route name.
func (r RouteConfig) checkPolicy(name string) error {
	if err := broker.ValidatePolicy("routes."+name, r.policy(), r.Responders); err != nil {
		return err
	}
	if tm := time.Duration(r.TimeoutMax); tm != 0 && r.Timeout != 0 && time.Duration(r.Timeout) > tm {
		return fmt.Errorf("routes.%s.timeout_max: %s is shorter than the route's timeout of %s", name, tm, time.Duration(r.Timeout))
	}
	return nil
}

// onBehalfOf maps each agent to the people it acts for.
func (c *Config) onBehalfOf() map[string][]string {
	out := map[string][]string{}
	for _, a := range c.Agents {
		if len(a.OnBehalfOf) > 0 {
			out[a.Name] = a.OnBehalfOf
		}
	}
	return out
}
