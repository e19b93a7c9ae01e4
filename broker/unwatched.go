package broker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// What a route does with a question that nobody watches when it is
// asked (Route.Unwatched).
const (
	// UnwatchedWait leaves the question waiting for its deadline; the
	// agent is warned. It is the default.
	UnwatchedWait = "wait"
	// UnwatchedEscalate takes the route's first escalation step at once.
	UnwatchedEscalate = "escalate"
)

// Watchers is implemented by channels where people learn of a question
// only by looking: the web inbox (a page open, or a push subscription)
// and the text channel (nobody is told). A channel without it tells
// people itself, with a message on their platform, and counts as
// watched.
type Watchers interface {
	// Watched reports whether anyone who may answer q would learn of it
	// in chat now.
	Watched(ctx context.Context, q *Question, chat string) (bool, error)
	// WatchedPlace names what people watch here, for the warning to the
	// agent ("the web inbox"), or "" when there is nothing to watch.
	WatchedPlace() string
}

// Asked is what an ask did: the question, whether this call stored it,
// and the warnings for the agent.
type Asked struct {
	Question *Question
	Created  bool
	// Warnings tell the agent of what may keep the question from being
	// answered, such as nobody watching the channels it went to.
	Warnings []string
}

// watchTimeout bounds the check for watchers after an ask: the question
// is stored, so the check never waits on the caller (a failed check
// counts as watched).
const watchTimeout = 5 * time.Second

// ValidateUnwatched checks route's unwatched option; field names it in
// errors ("routes.default.unwatched"). Escalating needs escalation
// steps to take.
func ValidateUnwatched(field string, route Route) error {
	switch route.Unwatched {
	case "", UnwatchedWait:
		return nil
	case UnwatchedEscalate:
		if len(route.Policy.Escalate) == 0 {
			return fieldErr(field, "%q needs escalate: steps on the route, to know where to escalate", UnwatchedEscalate)
		}
		return nil
	}
	return fieldErr(field, "%q is not one of %q (the default) and %q", route.Unwatched, UnwatchedWait, UnwatchedEscalate)
}

// unwatched checks a pending question just asked: when every channel it
// went to is one people must look at and nobody looks, it returns the
// warning for the agent and, when this call created the question on a
// route with unwatched: escalate, first takes the route's next
// escalation step. A repeated ask gets the warning again, checked anew,
// and escalates nothing.
func (b *Broker) unwatched(ctx context.Context, q *Question, created bool) []string {
	if q.Status != StatusPending {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), watchTimeout)
	defer cancel()
	places, watched := b.watchers(ctx, q)
	if watched {
		return nil
	}
	who := "nobody is told of the question"
	if len(places) > 0 {
		who = "nobody is watching " + strings.Join(places, " or ")
	}
	route := b.cfg.Routes[q.Route]
	if created && route.Unwatched == UnwatchedEscalate {
		took, err := b.escalate(ctx, q.ID, b.cfg.Now(), "nobody was watching")
		if err != nil {
			b.log.Warn("escalating an unwatched question", "question_id", q.ID, "err", err)
		}
		if took {
			return []string{fmt.Sprintf("%s; the question was escalated to %s at once, and waits until %s, then %s",
				who, q.Policy.Escalate[len(q.State.Escalations)].Route, whenText(english, q.ExpiresAt, b.cfg.Now(), b.cfg.Location), fallbackText(q))}
		}
	}
	return []string{fmt.Sprintf("%s; the question will wait until %s, then %s",
		who, whenText(english, q.ExpiresAt, b.cfg.Now(), b.cfg.Location), fallbackText(q))}
}

// watchers asks the channel of every target of q, escalations included,
// whether anyone watches it, and returns the places of those that name
// one. A target on a channel that tells people itself, or one that
// cannot say, counts as watched.
func (b *Broker) watchers(ctx context.Context, q *Question) (places []string, watched bool) {
	targets := slices.Clone(q.Targets)
	for _, e := range q.State.Escalations {
		targets = append(targets, e.Targets...)
	}
	if len(targets) == 0 {
		return nil, true
	}
	for _, t := range targets {
		ch, ok := b.channels[t.Channel]
		w, isW := ch.(Watchers)
		if !ok || !isW {
			return nil, true
		}
		yes, err := w.Watched(ctx, q, t.Chat)
		if err != nil {
			b.log.Warn("checking who watches", "question_id", q.ID, "channel", t.Channel, "err", err)
			return nil, true
		}
		if yes {
			return nil, true
		}
		if p := w.WatchedPlace(); p != "" && !slices.Contains(places, p) {
			places = append(places, p)
		}
	}
	return places, false
}

// fallbackText says what q's deadline does: "time out with its default
// (SQLite)", "time out with no answer", or, for a dialog with defaults
// on some prompts, "time out, with the defaults where there are (…)".
func fallbackText(q *Question) string {
	with, without := 0, 0
	for _, p := range q.Prompts {
		if len(p.Default) > 0 {
			with++
		} else {
			without++
		}
	}
	switch {
	case with == 0:
		return "time out with no answer"
	case without == 0 && with == 1:
		return "time out with its default (" + defaultsText(q) + ")"
	case without == 0:
		return "time out with its defaults (" + defaultsText(q) + ")"
	}
	return "time out, with the defaults where there are (" + defaultsText(q) + ")"
}
