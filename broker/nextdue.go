package broker

import (
	"time"
)

// MaxIdle bounds how long a loop that acts on timed work (the timeouts
// sweeper, the callback deliverer, the platform outbox) sleeps when its
// store tells it when the next entry falls due. A loop learns of work
// written on its own instance at once (a kick); work written by another
// instance sharing the store, such as a question with a short deadline
// asked there, is seen within MaxIdle at the latest.
const MaxIdle = 10 * time.Second

// noteScheduled tells the sweeper when q's next timed step falls due: its
// deadline, its next reminder, the end of its lease or its next
// escalation step, whichever comes first.
func (b *Broker) noteScheduled(q *Question) {
	if q == nil || q.Status != StatusPending {
		return
	}
	t := q.ExpiresAt
	for _, u := range []time.Time{q.NextReminder(), q.LeaseUntil, q.State.EscalateAt} {
		if !u.IsZero() && (t.IsZero() || u.Before(t)) {
			t = u
		}
	}
	b.due.Note(t)
}

// ScheduleWritten is signalled when a question asked or amended on this
// instance adds timed work to the schedule; TakeScheduled then says when
// the earliest of it falls due. The sweeper sleeps on it.
func (b *Broker) ScheduleWritten() <-chan struct{} { return b.due.C() }

// TakeScheduled returns the earliest time at which timed work written on
// this instance since the last call falls due, and forgets it; the zero
// time when there was none.
func (b *Broker) TakeScheduled() time.Time { return b.due.Take() }
