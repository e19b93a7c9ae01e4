package broker

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// TimedOut returns the resolution of a question whose deadline passed at
// now. Every prompt a person answered (or skipped) keeps that answer, with
// who gave it; every other prompt takes its default when it has one,
// marked Defaulted, and is otherwise absent from the answers. Fallback
// says what the unanswered prompts got: FallbackDefault when each took a
// default, FallbackNone when none did, FallbackPartial when some did. A
// timeout never looks like a person's answer: the resolution's AnsweredBy
// stays empty.
//
// The resolution holds only while the progress it was built from stands
// (IfProgress): use Broker.Expire, which reads again and retries when a
// dialog answer came in meanwhile.
func TimedOut(q *Question, now time.Time) Resolution {
	given := q.ProgressCount()
	rev := q.State.Rev
	r := Resolution{Status: StatusTimedOut, ResolvedAt: now.UTC().Truncate(time.Millisecond), IfProgress: &given, IfRev: &rev}
	answers := map[string]Answer{}
	defaulted, missing := 0, 0
	for i, p := range q.Prompts {
		if a := q.Given(i); a != nil {
			kept := *a
			kept.Defaulted = false
			answers[p.Question] = kept
			continue
		}
		if len(p.Default) == 0 {
			missing++
			continue
		}
		answers[p.Question] = defaultAnswer(p)
		defaulted++
	}
	switch {
	case defaulted == 0:
		r.Fallback = FallbackNone
	case missing == 0:
		r.Fallback = FallbackDefault
	default:
		r.Fallback = FallbackPartial
	}
	if len(answers) > 0 {
		r.Answers = answers
	}
	return r
}

// defaultAnswer is the answer p's default gives, marked Defaulted: the
// options it names by their labels, with the option's action and prefill
// on a single choice, or else the default as free text.
func defaultAnswer(p Prompt) Answer {
	a := Answer{Selected: []string{}, Defaulted: true}
	for _, d := range p.Default {
		if k := OptionIndex(p, d); k >= 0 {
			a.Selected = append(a.Selected, p.Options[k].Label)
			if !p.MultiSelect {
				a.Action, a.Prefill = p.Options[k].Action, p.Options[k].Prefill
			}
		} else {
			a.CustomText = d
		}
	}
	if p.Field != nil {
		a.Value = p.Field.Default
	}
	return a
}

// expireAttempts bounds how often Expire rebuilds a timeout whose dialog
// received answers meanwhile; each retry means another answer was saved,
// and a dialog has at most MaxPrompts.
const expireAttempts = MaxPrompts + 2

// Expire resolves q, read from the store, as timed out at now (see
// TimedOut), keeping every answer people gave: when a dialog answer was
// saved after q was read, the compare-and-set refuses the stale
// resolution, and Expire reads the question again and retries. It returns
// the resolved question; a question closed meanwhile gives a
// *ClosedError, as Resolve does; one whose deadline a snooze moved past
// now gives ErrNotDue, with the question as it stands. The check is on
// the snooze, not on the deadline alone: a question no one snoozed keeps
// the deadline it was asked with, so expiring it at a now before that
// deadline is the caller's choice and is honoured.
func (b *Broker) Expire(ctx context.Context, q *Question, now time.Time) (*Question, error) {
	for attempt := 1; ; attempt++ {
		if q.Status != StatusPending {
			return nil, &ClosedError{Question: q}
		}
		if len(q.State.Snoozes) > 0 && now.Before(q.ExpiresAt) {
			// Snoozed since it was found due: the new deadline stands.
			// Only a snooze moves a deadline; a question never snoozed
			// is timed out at now even before its deadline, as its
			// caller asks.
			return q, fmt.Errorf("broker: expire %s: its deadline moved to %s: %w", q.ID, q.ExpiresAt.Format(time.RFC3339), ErrNotDue)
		}
		done, err := b.Resolve(ctx, q.ID, TimedOut(q, now))
		if !errors.Is(err, ErrConflict) {
			return done, err
		}
		if attempt == expireAttempts {
			return nil, fmt.Errorf("broker: expire %s: answers kept arriving: %w", q.ID, err)
		}
		if q, err = b.store.Get(ctx, q.ID); err != nil {
			return nil, err
		}
	}
}
