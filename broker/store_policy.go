package broker

import (
	"context"
	"fmt"
	"time"
)

// PolicyStore is the part of a Store that keeps the state of a question's
// team policies (votes, snoozes) and its audit log. Every change of that
// state is a compare-and-set on its revision, so that two instances acting
// on one question at the same instant never lose a change: one of them
// fails with ErrConflict, reads again and retries.
type PolicyStore interface {
	// Amend replaces the policy state of a pending question whose state
	// revision is still rev with a.State (stored with revision rev+1),
	// moves its deadline and reminders when a.ExpiresAt is set, appends
	// a.Audit to its audit log and, with a.Extended, the extended event to
	// the event log, all in one atomic step. It
	// returns the updated question. A closed question gives a
	// *ClosedError; a revision other than rev gives ErrConflict.
	Amend(ctx context.Context, id string, rev int64, a Amendment) (*Question, error)
	// AddAudit appends entries to the audit log of a question (for
	// actions that change nothing, such as a refused vote). An unknown
	// question gives ErrNotFound.
	AddAudit(ctx context.Context, id string, entries ...AuditEntry) error
	// Audit returns the audit log of a question, oldest first; an unknown
	// question gives ErrNotFound. The log goes with its question.
	Audit(ctx context.Context, id string) ([]AuditEntry, error)
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

// The kinds of audit entries.
const (
	AuditVote       = "vote"
	AuditVoteChange = "vote_changed"
	AuditRefused    = "refused"
	AuditSnoozed    = "snoozed"
	AuditEscalated  = "escalated"
	AuditResolved   = "resolved"
	AuditNote       = "note"
)

// AuditEntry is one thing that happened to a question: a vote, a refusal,
// a snooze, an escalation or the resolution, with who, when and through
// which channel.
type AuditEntry struct {
	At     time.Time  `json:"at"`
	Kind   string     `json:"kind"`
	By     *Responder `json:"by,omitempty"`
	Choice string     `json:"choice,omitempty"`
	Detail string     `json:"detail,omitempty"`
	// Reason is a short code for a refusal: "not_responder",
	// "requester", "unlinked", "duplicate_vote", "ambiguous",
	// "not_a_vote".
	Reason string `json:"reason,omitempty"`
	// Status is the outcome of a resolution entry.
	Status Status `json:"status,omitempty"`
	// ExpiresAt is the new deadline of a snooze.
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
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
