package timeouts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

func (s *Sweeper) sweepEscalations(ctx context.Context, now time.Time) (Stats, error) {
	return s.drain(ctx,
		func(limit int) ([]string, error) { return s.st.DueEscalations(ctx, now, limit) },
		func(id string) (Stats, error) { return s.escalate(ctx, id, now) })
}

// escalate has the broker take the escalation step of one question that
// is due at now. The broker claims the step in the store before posting
// anything, so each step is taken once, also across restarts and
// instances; a step another sweeper took, or a question closed
// meanwhile, is a lost race.
func (s *Sweeper) escalate(ctx context.Context, id string, now time.Time) (Stats, error) {
	took, err := s.b.Escalate(ctx, id, now)
	var closed *broker.ClosedError
	switch {
	case errors.As(err, &closed), errors.Is(err, broker.ErrNotFound):
		return Stats{LostRaces: 1}, nil
	case err != nil:
		return Stats{}, fmt.Errorf("escalate %s: %w", id, err)
	case !took:
		return Stats{LostRaces: 1}, nil
	}
	return Stats{Escalated: 1}, nil
}
