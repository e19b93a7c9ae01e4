package routes

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
	"github.com/askbridge/askbridge/internal/i18n"
)

// Config is the routes section: each route by name. The route named
// broker.DefaultRoute is required.
type Config map[string]Route

// Route names where questions go. Targets are "channel" or
// "channel:chat"; a route without targets asks nobody (its questions
// resolve at once as unsupported).
type Route struct {
	Targets    []string        `yaml:"targets"`
	Responders []string        `yaml:"responders"`
	Timeout    config.Duration `yaml:"timeout"`
	Reminders  []float64       `yaml:"reminders"`
	// Locale is the language of the route's copies ("de", "ja";
	// docs/languages.md); "" leaves it to each channel.
	Locale string `yaml:"locale"`
	// Unwatched is what happens to a question nobody watches when it is
	// asked: "wait" (the default) or "escalate" (broker.Route.Unwatched).
	Unwatched string `yaml:"unwatched"`
	// Policy holds the route's team policies (policy.go).
	Policy `yaml:",inline"`
}

// ParseTarget reads "channel" or "channel:chat".
func ParseTarget(s string) broker.Target {
	ch, chat, _ := strings.Cut(strings.TrimSpace(s), ":")
	return broker.Target{Channel: ch, Chat: chat}
}

// Broker returns the routes as the broker takes them.
func (c Config) Broker() map[string]broker.Route {
	out := map[string]broker.Route{}
	for name, r := range c {
		br := broker.Route{Responders: r.Responders, Timeout: time.Duration(r.Timeout), Reminders: r.Reminders, Policy: r.broker(), Unwatched: r.Unwatched}
		br.Locale, _ = i18n.Parse(r.Locale) // Validate reports a bad one
		for _, t := range r.Targets {
			br.Targets = append(br.Targets, ParseTarget(t))
		}
		out[name] = br
	}
	return out
}

// Validate checks every route, reporting every problem with its key:
// the default route is present, each target names one of the configured
// channels, timeouts, reminders, responders and policies are sound,
// unwatched is "wait" or "escalate" (with escalation steps), and the
// escalation steps name routes that exist. deadline is the timeout of
// a route that sets none (timeouts.default); people is the directory that
// responder entries and quorums speak of.
func (c Config) Validate(channels map[string]bool, deadline time.Duration, people *broker.People) error {
	var p config.Problems
	if _, ok := c[broker.DefaultRoute]; !ok {
		p.Add(fmt.Errorf("routes: a route named %q is required (questions that name no route go there)", broker.DefaultRoute))
	}
	routes := c.Broker()
	for _, name := range slices.Sorted(maps.Keys(c)) {
		r := c[name]
		for i, t := range r.Targets {
			tg := ParseTarget(t)
			if !channels[tg.Channel] {
				p.Add(fmt.Errorf("routes.%s.targets[%d]: channel %q is not configured (configured: %s)", name, i, tg.Channel, strings.Join(slices.Sorted(maps.Keys(channels)), ", ")))
			}
		}
		if _, err := i18n.Parse(r.Locale); err != nil {
			p.Add(fmt.Errorf("routes.%s.locale: %w", name, err))
		}
		if d := time.Duration(r.Timeout); d != 0 {
			p.Add(config.At("routes."+name+".timeout", broker.CheckTimeout(d)))
		}
		p.Add(broker.ValidateReminders("routes."+name+".reminders", r.Reminders, cmp.Or(time.Duration(r.Timeout), deadline)))
		p.Add(broker.ValidateResponders("routes."+name+".responders", r.Responders, routes[name].Targets, people))
		p.Add(r.checkPolicy(name, people))
		p.Add(broker.ValidateUnwatched("routes."+name+".unwatched", routes[name]))
	}
	for _, name := range slices.Sorted(maps.Keys(c)) {
		r := c[name]
		timeout := cmp.Or(time.Duration(r.Timeout), deadline)
		p.Add(broker.ValidateEscalation("routes."+name+".escalate", name, r.broker().Escalate, timeout, routes))
	}
	return errors.Join(p...)
}
