package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
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
	// Escalate lists the escalation steps: after a share of the timeout
	// ("50%") or a duration ("15m"), copies go to another route.
	Escalate []EscalateConfig `yaml:"escalate"`
}

// EscalateConfig is one step of routes.NAME.escalate.
type EscalateConfig struct {
	After string `yaml:"after"`
	Route string `yaml:"route"`
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
	for _, e := range p.Escalate {
		out.Escalate = append(out.Escalate, broker.EscalationStep{After: e.After, Route: e.Route})
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

// checkEscalations checks the escalation steps of every route against
// the other routes and the route's timeout.
func (c *Config) checkEscalations() error {
	var p config.Problems
	routes := c.brokerRoutes()
	for _, name := range slices.Sorted(maps.Keys(c.Routes)) {
		r := c.Routes[name]
		timeout := cmp.Or(time.Duration(r.Timeout), c.Timeouts.Deadline())
		p.Add(broker.ValidateEscalation("routes."+name+".escalate", name, r.policy().Escalate, timeout, routes))
	}
	return errors.Join(p...)
}

// checkOnBehalfOf checks that each agent's on_behalf_of entry names a
// person on a configured channel: "channel:user-id".
func (c *Config) checkOnBehalfOf() error {
	var p config.Problems
	channels := c.enabledChannels()
	known := strings.Join(slices.Sorted(maps.Keys(channels)), ", ")
	for i, a := range c.Agents {
		for k, e := range a.OnBehalfOf {
			f := fmt.Sprintf("agents[%d].on_behalf_of[%d]", i, k)
			ch, user, ok := strings.Cut(e, ":")
			switch {
			case !ok || strings.TrimSpace(ch) == "" || strings.TrimSpace(user) == "":
				p.Add(fmt.Errorf("%s: %q is not \"channel:user-id\" (e.g. \"slack:U0123\")", f, e))
			case strings.ContainsAny(e, " \t") || strings.Contains(user, ":"):
				p.Add(fmt.Errorf("%s: %q is not \"channel:user-id\": name one person, without spaces or roles", f, e))
			case !channels[ch]:
				p.Add(fmt.Errorf("%s: channel %q is not configured (configured: %s)", f, ch, known))
			}
		}
	}
	return errors.Join(p...)
}
