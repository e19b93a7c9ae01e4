package broker

import (
	"context"
	"fmt"
	"time"
)

// PolicyStore is the part of a Store that keeps the state of a question's
// team policies (votes, snoozes) and its audit trail (AuditLog). Every
// change of that state is a compare-and-set on its revision, so that two
// instances acting on one question at the same instant never lose a
// change: one of them fails with ErrConflict, reads again and retries.
type PolicyStore interface {
	AuditLog

	// Amend replaces the policy state of a pending question whose state
	// revision is still rev with a.State (stored with revision rev+1),
	// moves its deadline and reminders when a.ExpiresAt is set, appends
	// a.Audit to its audit log and, with a.Extended, the extended event to
	// the event log, all in one atomic step. It
	// returns the updated question. A closed question gives a
	// *ClosedError; a revision other than rev gives ErrConflict.
	Amend(ctx context.Context, id string, rev int64, a Amendment) (*Question, error)
	// DueEscalations returns up to limit ids of pending questions whose
	// next escalation step (State.EscalateAt, indexed by Amend) is at or
	// before now, earliest first.
	DueEscalations(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// Amendment is one change of a pending question's policy state.
type Amendment struct {
	State PolicyState
	// ExpiresAt, when not zero, is the question's new deadline, and
	// Reminders its new reminder times (the count of reminders sent
	// stays).
	ExpiresAt time.Time
	Reminders []time.Time
	// Audit is appended to the audit log in the same step.
	Audit []AuditEntry
	// Extended, when set, says that the amendment is a snooze (the last
	// of State.Snoozes): in the same step the store appends its
	// ExtendedEvent to the event log, and then tells the feed, so that
	// agents waiting on the question learn the new deadline.
	Extended bool
}

// AuditLog is the part of a Store that keeps the audit trail of every
// question: what happened to it, in entries that each store seals as it
// appends them (SealAudit: it fills Question, Agent, Seq, Prev and Hash
// from the trail's end, in the same atomic step as the append, so that
// concurrent appends to one question chain one after the other).
//
// Beside AddAudit and Amend, the steps of every question append their
// entry in the same atomic step as the change they record: Create the
// ask (AskedAudit) and its in-process copies (PostedAudit), AddMessage
// the copy posted (PostedAudit), Resolve the resolution (ResolvedAudit),
// whichever path resolves it. An id whose trail is still kept is taken:
// Create refuses it with ErrIDTaken.
//
// The trail outlives its question: Purge and a question's expiry leave
// it, and PurgeAudit removes the trails whose newest entry is older than
// the audit retention (on Redis the trail's key also expires that long
// after its last append: AuditRetainer).
type AuditLog interface {
	// AddAudit appends entries to the trail of a question (for actions
	// that change nothing, such as a refused vote). An unknown question,
	// or one purged, gives ErrNotFound.
	AddAudit(ctx context.Context, id string, entries ...AuditEntry) error
	// Audit returns the trail of a question, oldest first, also after
	// the question was purged; a question with neither a record nor a
	// trail gives ErrNotFound.
	Audit(ctx context.Context, id string) ([]AuditEntry, error)
	// AuditSince returns the entries f selects (f checked by
	// AuditFilter.Check), oldest first by time, question and seq.
	AuditSince(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
	// PurgeAudit removes the trails whose newest entry is before
	// before, and returns how many entries went.
	PurgeAudit(ctx context.Context, before time.Time) (int, error)
}

// AuditRetainer is a store whose audit trails expire by themselves
// (Redis keys with a time to live): SetAuditRetention, called before
// the store is used, says for how long after its newest entry a trail
// is kept (DefaultAuditRetention until then).
type AuditRetainer interface {
	SetAuditRetention(d time.Duration)
}

// ExtendedEvent returns the event the stores append for a, an amendment
// of q (as q stands once amended): the ExtendedEvent of the last of
// a.State.Snoozes. ok is false when a is not Extended; an Extended
// amendment without a snooze or a new deadline gives an ErrInvalid
// error, and the store changes nothing.
func (a Amendment) ExtendedEvent(q *Question) (ev Event, ok bool, err error) {
	if !a.Extended {
		return Event{}, false, nil
	}
	n := len(a.State.Snoozes)
	if n == 0 || a.ExpiresAt.IsZero() {
		return Event{}, false, fmt.Errorf("%w: an extended amendment needs a snooze and a new deadline", ErrInvalid)
	}
	return ExtendedEvent(q, a.State.Snoozes[n-1], n), true, nil
}
