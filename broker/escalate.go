package broker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/internal/i18n"
)

// EscalationStep is one step of a route's escalation: when a question is
// still pending After its creation (a share of its timeout, "50%", or a
// duration, "15m"), copies go to the targets of Route and its responders
// may answer too.
type EscalationStep struct {
	After string `json:"after"`
	Route string `json:"route"`
}

// Escalation is one step taken: when, to which route, and the targets and
// responders that route added to the question.
type Escalation struct {
	Route      string    `json:"route"`
	At         time.Time `json:"at"`
	Targets    []Target  `json:"targets,omitempty"`
	Responders []string  `json:"responders,omitempty"`
}

// offset returns how long after its creation a question of timeout is
// escalated by s, or an error naming what is wrong with After.
func (s EscalationStep) offset(timeout time.Duration) (time.Duration, error) {
	a := strings.TrimSpace(s.After)
	if pct, ok := strings.CutSuffix(a, "%"); ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || !(p > 0 && p < 100) {
			return 0, fmt.Errorf("%q is not a share of the timeout strictly between 0%% and 100%% (write e.g. \"50%%\")", s.After)
		}
		return time.Duration(p / 100 * float64(timeout)).Truncate(time.Millisecond), nil
	}
	d, err := ParseDuration(a)
	if err != nil {
		return 0, fmt.Errorf("%q is neither a share of the timeout (\"50%%\") nor a duration (\"15m\")", s.After)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not after the question was asked", s.After)
	}
	return d, nil
}

// ValidateEscalation checks the escalation steps of route name: each
// After well formed and, with a known timeout, before the deadline and
// after the step before it; each Route a configured route other than
// name, with targets. field names the list in errors
// ("routes.prod.escalate").
func ValidateEscalation(field, name string, steps []EscalationStep, timeout time.Duration, routes map[string]Route) error {
	var prev time.Duration
	for i, s := range steps {
		f := fmt.Sprintf("%s[%d]", field, i)
		d, err := s.offset(timeout)
		if err != nil {
			return fieldErr(f+".after", "%s", err.Error())
		}
		if timeout > 0 && d >= timeout {
			return fieldErr(f+".after", "%s is not before the route's timeout of %s: the question would time out first", s.After, shortDuration(english, timeout))
		}
		if i > 0 && d <= prev {
			return fieldErr(f+".after", "%s is not after the step before it", s.After)
		}
		prev = d
		if s.Route == "" {
			return fieldErr(f+".route", "missing: name the route to escalate to")
		}
		if s.Route == name {
			return fieldErr(f+".route", "%q is this route itself", s.Route)
		}
		r, ok := routes[s.Route]
		if !ok {
			known := make([]string, 0, len(routes))
			for k := range routes {
				known = append(known, k)
			}
			slices.Sort(known)
			return fieldErr(f+".route", "no route named %q is configured (routes: %s)", s.Route, strings.Join(known, ", "))
		}
		if len(r.Targets) == 0 {
			return fieldErr(f+".route", "route %q has no targets: nobody would be asked", s.Route)
		}
	}
	return nil
}

// escalateAt returns when step n (0-based) of q's escalation is due, or
// the zero time when q has no such step.
func (q *Question) escalateAt(n int) time.Time {
	if n >= len(q.Policy.Escalate) {
		return time.Time{}
	}
	d, err := q.Policy.Escalate[n].offset(q.Timeout)
	if err != nil {
		return time.Time{}
	}
	return q.CreatedAt.Add(d).UTC().Truncate(time.Millisecond)
}

// scheduleEscalation records when the first escalation step of a new
// question q is due, so that the store's index finds it.
func (b *Broker) scheduleEscalation(ctx context.Context, q *Question) *Question {
	at := q.escalateAt(0)
	if at.IsZero() {
		return q
	}
	st := clonedState(q.State)
	st.EscalateAt = at
	done, err := b.store.Amend(ctx, q.ID, q.State.Rev, Amendment{State: st})
	b.known.forget(q.ID)
	if err != nil {
		b.log.Error("schedule escalation", "question_id", q.ID, "err", err)
		return q
	}
	return done
}

// Escalate takes the escalation step of question id that is due at now,
// if there is one and nobody took it yet: the step is claimed by a
// compare-and-set of the question's policy state (with its audit entry),
// so that of any number of sweepers, here or on other instances, exactly
// one takes it, also across restarts. Then copies go to the targets of
// the step's route through the normal posting path, and every copy shows
// the escalation. It reports whether this call took a step.
func (b *Broker) Escalate(ctx context.Context, id string, now time.Time) (bool, error) {
	return b.escalate(ctx, id, now, "")
}

// escalate takes the next escalation step of question id: at its time,
// or, with a reason for taking it early (which the audit entry gives),
// at now whatever its time.
func (b *Broker) escalate(ctx context.Context, id string, now time.Time, early string) (bool, error) {
	now = now.UTC().Truncate(time.Millisecond)
	for range amendAttempts {
		q, err := b.store.Get(ctx, id)
		if err != nil {
			return false, err
		}
		if q.Status != StatusPending {
			return false, &ClosedError{Question: q}
		}
		n := len(q.State.Escalations)
		at := q.escalateAt(n)
		if at.IsZero() || (early == "" && now.Before(at)) || !now.Before(q.ExpiresAt) {
			return false, nil
		}
		step := q.Policy.Escalate[n]
		route := b.cfg.Routes[step.Route]
		st := clonedState(q.State)
		st.Escalations = append(st.Escalations, Escalation{Route: step.Route, At: now, Targets: route.Targets, Responders: route.Responders})
		st.EscalateAt = q.escalateAt(n + 1)
		entry := AuditEntry{At: now, Kind: AuditEscalated, Detail: "to " + step.Route}
		if early != "" {
			entry.Detail += ": " + early
		}
		done, err := b.store.Amend(ctx, id, q.State.Rev, Amendment{State: st, Audit: []AuditEntry{entry}})
		b.known.forget(id)
		if errors.Is(err, ErrConflict) {
			continue // a vote or a snooze came first: read again
		}
		if err != nil {
			return false, err
		}
		b.log.Info("question escalated", "question_id", id, "route", step.Route, "step", n+1)
		b.postEscalated(ctx, done, route.Targets)
		b.updateCopies(done)
		return true, nil
	}
	return false, fmt.Errorf("broker: escalate %s: too many changes at once: %w", id, ErrConflict)
}

// postEscalated posts q to the targets an escalation added, skipping
// those it already has a copy in.
func (b *Broker) postEscalated(ctx context.Context, q *Question, targets []Target) {
	have := q.Targets
	for _, e := range q.State.Escalations[:len(q.State.Escalations)-1] {
		have = append(slices.Clone(have), e.Targets...)
	}
	var add []Target
	for _, t := range targets {
		if !slices.Contains(have, t) && !slices.Contains(add, t) {
			add = append(add, t)
		}
	}
	if len(add) == 0 {
		return
	}
	// The posts go through the outbox like the question's first copies:
	// retried while the platform is away, and edited at the end.
	deadline := q.ExpiresAt
	if deadline.IsZero() {
		deadline = b.cfg.Now().Add(MaxTimeout)
	}
	if err := b.store.EnqueuePlatformWork(ctx, q.ID, TaskPost, add, b.cfg.Now(), deadline); err != nil {
		b.log.Warn("escalation posts not queued", "question_id", q.ID, "err", err)
		return
	}
	// The first attempts are made now; failures are retried by the outbox.
	grace := time.NewTimer(b.cfg.Grace)
	defer grace.Stop()
	select {
	case <-b.deliverNow(q.ID):
	case <-grace.C:
	case <-ctx.Done():
	}
}

// inScope reports whether in comes from a chat q was posted to and its
// user may answer there: the route's responders in the route's chats, and
// each escalation's responders in its chats (or, for an escalation
// listing responders, in any chat of q). The first result says whether
// the chat is one of q's at all.
func (q *Question) inScope(in Inbound) (known, allowed bool) {
	here := Target{Channel: in.Channel, Chat: in.Chat}
	inOrig := slices.Contains(q.Targets, here)
	known = inOrig
	for _, e := range q.State.Escalations {
		known = known || slices.Contains(e.Targets, here)
	}
	if !known {
		return false, false
	}
	if inOrig && ResponderAllowed(q.Responders, in) {
		return true, true
	}
	for _, e := range q.State.Escalations {
		if len(e.Responders) == 0 && slices.Contains(e.Targets, here) {
			return true, true
		}
		if len(e.Responders) > 0 && ResponderAllowed(e.Responders, in) {
			return true, true
		}
	}
	if !inOrig && len(q.Responders) > 0 && ResponderAllowed(q.Responders, in) {
		return true, true
	}
	return true, false
}

// EscalatedText says where q was escalated ("escalated to oncall"), or ""
// when it was not.
func EscalatedText(q *Question) string { return escalatedText(english, q) }

func escalatedText(w *i18n.Printer, q *Question) string {
	if len(q.State.Escalations) == 0 {
		return ""
	}
	var routes []string
	for _, e := range q.State.Escalations {
		routes = append(routes, e.Route)
	}
	return w.T("chip.escalated", strings.Join(routes, ", "))
}
