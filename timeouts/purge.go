package timeouts

import (
	"context"
	"time"
)

// DefaultRetention is how long resolved questions, their events and
// finished deliveries are kept when Options.Retention is zero; PurgeEvery
// is how often Run removes older ones.
const (
	DefaultRetention = 7 * 24 * time.Hour
	PurgeEvery       = time.Hour
)

// Purge removes what was resolved before now minus the retention:
// questions, their events and finished deliveries. Pending questions are
// never removed, however old. It returns how many questions it removed.
func (s *Sweeper) Purge(ctx context.Context, now time.Time) (int, error) {
	return s.st.Purge(ctx, now.Add(-s.opts.Retention))
}

// purgeNow purges at the broker's clock and logs what it did.
func (s *Sweeper) purgeNow(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	n, err := s.Purge(ctx, s.b.Now())
	switch {
	case err != nil && ctx.Err() == nil:
		s.log.Warn("retention: purge failed", "err", err)
	case n > 0:
		s.log.Info("retention: removed resolved questions", "count", n, "older_than", s.opts.Retention)
	}
}
