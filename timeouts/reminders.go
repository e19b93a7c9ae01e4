package timeouts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// DueReminder returns the number (1-based) of the latest reminder of q that
// is due at now and not yet sent, or 0 when none is. When several are
// overdue at once (after downtime) it is the last of them: one nudge
// stands for all, and claiming it marks the earlier ones as passed.
func DueReminder(q *broker.Question, now time.Time) int {
	for n := len(q.Reminders); n > q.RemindersSent; n-- {
		if !q.Reminders[n-1].After(now) {
			return n
		}
	}
	return 0
}

func (s *Sweeper) sweepReminders(ctx context.Context, now time.Time) (Stats, error) {
	return s.drain(ctx,
		func(limit int) ([]string, error) { return s.st.DueReminders(ctx, now, limit) },
		func(id string) (Stats, error) { return s.remind(ctx, id, now) })
}

// remind claims the due reminder of one question in the store and, only
// when this call made the claim, has the broker nudge every copy. The claim
// comes first, so a reminder is sent at most once, also across restarts
// and instances.
func (s *Sweeper) remind(ctx context.Context, id string, now time.Time) (Stats, error) {
	q, ok, err := s.pending(ctx, id)
	if err != nil || !ok {
		return Stats{}, err
	}
	if !q.ExpiresAt.After(now) {
		return Stats{}, nil // past its deadline: the next sweep times it out
	}
	n := DueReminder(q, now)
	if n == 0 {
		return Stats{}, nil
	}
	claimed, err := s.st.ClaimReminder(ctx, id, n)
	if err != nil {
		return Stats{}, fmt.Errorf("claim reminder %d of %s: %w", n, id, err)
	}
	if !claimed {
		return Stats{}, nil
	}
	err = s.b.Remind(ctx, id)
	switch {
	case errors.Is(err, broker.ErrClosed):
		return Stats{}, nil
	case err != nil:
		return Stats{}, fmt.Errorf("remind %s: %w", id, err)
	}
	s.log.Info("reminder sent", "question_id", id, "reminder", n, "of", len(q.Reminders))
	return Stats{Reminded: 1}, nil
}
