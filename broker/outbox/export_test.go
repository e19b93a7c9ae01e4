package outbox

import (
	"time"

	"github.com/askbridge/askbridge/broker"
)

// MayHavePosted lets the external tests ask when a post looks for its
// copy first.
func (o *Outbox) MayHavePosted(t broker.PlatformTask, now time.Time) bool {
	return o.mayHavePosted(t, now)
}
