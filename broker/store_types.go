package broker

import (
	"fmt"
	"slices"
	"time"
)

// The records and arguments of the store contract (store.go).

// CheckInProcess checks the inProcess argument of Questions.Create
// against q, the same way for every store: each of its targets must be
// one of q.Targets. The broker draws it from q.Targets (splitTargets).
func CheckInProcess(q *Question, inProcess []Target) error {
	for _, t := range inProcess {
		if !slices.Contains(q.Targets, t) {
			return fmt.Errorf("%w: in-process target %q is not one of the question's targets", ErrInvalid, t.String())
		}
	}
	return nil
}

// Resolved is one hint of the resolution feed: question ID was resolved,
// and it belongs to Agent. An empty ID means "re-check everything"; an
// empty Agent beside an ID means its agent is not known (a hint from an
// older bridge), so whoever follows any agent re-checks.
type Resolved struct {
	ID    string
	Agent string
	// Callback is set when the question has a CallbackURL, so that a
	// delivery was enqueued with the resolution. Only the instance that
	// resolved the question sets it; a hint from another instance has it
	// unset, and that instance's deliverer sends the callback.
	Callback bool
}

// Filter selects questions for List. Empty fields match everything.
type Filter struct {
	Agent     string
	SessionID string
	Status    Status
	// Channel and Chat select questions with a copy posted there.
	Channel string
	Chat    string
	// Limit bounds the answer; 0 means the store's default, which may be
	// a bound too (1000 on Redis): read everything with a loop.
	Limit int
}

// Event is one entry of the event log: a resolution, or the extension of
// a pending question's deadline by a snooze. Seq grows strictly, so that
// a client may resume after the last Seq it saw.
type Event struct {
	Seq        int64  `json:"seq"`
	QuestionID string `json:"question_id"`
	Agent      string `json:"agent"`
	SessionID  string `json:"session_id,omitempty"`
	// Type is EventResolved or EventExtended. Stores give "" (an entry
	// written before extensions were logged) as EventResolved.
	Type string `json:"type,omitempty"`
	// Status is the outcome of a resolution; pending for an extension.
	Status Status    `json:"status"`
	At     time.Time `json:"at"`
	// Extension is what an extended event tells; nil for a resolution.
	Extension *Extension `json:"extension,omitempty"`
}

// The types of events in the event log.
const (
	EventResolved = "resolved"
	EventExtended = "extended"
)

// Extension is the deadline change an extended event reports: the new
// expires_at, who snoozed, and how many snoozes the question has had with
// this one (its number, so that each snooze is logged once).
type Extension struct {
	ExpiresAt time.Time `json:"expires_at"`
	SnoozedBy Responder `json:"snoozed_by"`
	Snoozes   int       `json:"snoozes"`
}

// ExtendedEvent is the event of snooze number n (1-based) of q, the one
// described by sn. Stores append it, in the step that moves the deadline,
// when an Amendment carries Extended.
func ExtendedEvent(q *Question, sn Snooze, n int) Event {
	return Event{
		QuestionID: q.ID, Agent: q.Agent, SessionID: q.SessionID, Type: EventExtended,
		Status: StatusPending, At: sn.At.UTC(),
		Extension: &Extension{ExpiresAt: sn.ExpiresAt.UTC(), SnoozedBy: sn.By, Snoozes: n},
	}
}

// Delivery states.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Delivery is one webhook callback of a resolution, kept in the outbox
// until it is acknowledged or gives up.
type Delivery struct {
	ID         string    `json:"id"`
	QuestionID string    `json:"question_id"`
	Agent      string    `json:"agent"`
	URL        string    `json:"url"`
	State      string    `json:"state"`
	Attempts   int       `json:"attempts"`
	NextAt     time.Time `json:"next_at"`
	LastError  string    `json:"last_error,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	// Claim is the end of the hold that ClaimDeliveries placed on the
	// delivery (the next attempt time it wrote); zero for a delivery not
	// read by a claim. It fences UpdateDelivery: an outcome recorded
	// after the hold ran out and another claim took the delivery must not
	// overwrite what that claim records.
	Claim time.Time `json:"-"`
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

// TaskKind says what a platform task does with its copy.
type TaskKind string

// Task kinds.
const (
	TaskPost   TaskKind = "post"
	TaskEdit   TaskKind = "edit"
	TaskRemind TaskKind = "remind"
)

// Valid reports whether k is a known kind.
func (k TaskKind) Valid() bool { return k == TaskPost || k == TaskEdit || k == TaskRemind }

// Task states. Queued and retrying tasks are unfinished: they are due at
// NextAt. Done, failed and dropped tasks are finished.
const (
	TaskQueued   = "queued"
	TaskRetrying = "retrying"
	TaskDone     = "done"
	TaskFailed   = "failed"
	// TaskDropped ends a task that had nothing left to do: the question
	// closed before its copy was posted, or there is no copy to edit.
	TaskDropped = "dropped"
)

// TaskFinished reports whether state ends a task.
func TaskFinished(state string) bool {
	return state == TaskDone || state == TaskFailed || state == TaskDropped
}

// EditWindow is how long the edits of a copy are retried after they were
// asked for.
const EditWindow = 24 * time.Hour

// PlatformTask is one piece of platform work of a question.
type PlatformTask struct {
	QuestionID string    `json:"question_id"`
	Kind       TaskKind  `json:"kind"`
	Target     Target    `json:"target"`
	State      string    `json:"state"`
	Attempts   int       `json:"attempts"`
	NextAt     time.Time `json:"next_at"`
	// Deadline is when the task gives up: the question's deadline for
	// posts and reminders, EditWindow after the last request for edits.
	Deadline time.Time `json:"deadline"`
	// ErrorClass is the class of the last failed attempt; empty when
	// none failed, or when the task ended for another reason.
	ErrorClass FailureClass `json:"error_class,omitempty"`
	// LastError is what people and agents are shown of the last failed
	// attempt, without its class (Failure.Text: "chat not found", "the
	// platform did not answer in time"), or the reason a task ended
	// without one ("the question no longer exists").
	LastError string `json:"last_error,omitempty"`
	// MessageID is the platform message of a posted copy.
	MessageID string `json:"message_id,omitempty"`
	// Gen counts the requests for the task (see PlatformOutbox).
	Gen       int64     `json:"gen"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Claim is the end of the hold a claim placed on the task; zero for a
	// task not read by a claim. It fences UpdatePlatformWork.
	Claim time.Time `json:"-"`
}

// GaveUp reports whether the task failed at its deadline: a failure of
// any class but permanent ends a task only there (the outbox retries it
// until then), so the state and the class say it.
func (t PlatformTask) GaveUp() bool {
	return t.State == TaskFailed && t.ErrorClass != "" && t.ErrorClass != FailPermanent
}

// ErrorText is the last error as a copy shows it beside its class: the
// text, after "gave up after N attempts: " when the task gave up.
func (t PlatformTask) ErrorText() string {
	if t.GaveUp() {
		return fmt.Sprintf("gave up after %d attempts: %s", t.Attempts, t.LastError)
	}
	return t.LastError
}

// ErrorLine is the last error in one line, with its class: "permanent:
// chat not found", "gave up after 3 attempts: timeout: the platform did
// not answer in time", or the reason a task ended without a failure.
func (t PlatformTask) ErrorLine() string {
	switch {
	case t.ErrorClass == "":
		return t.LastError
	case t.GaveUp():
		return fmt.Sprintf("gave up after %d attempts: %s: %s", t.Attempts, t.ErrorClass, t.LastError)
	}
	return string(t.ErrorClass) + ": " + t.LastError
}

// Backlog is the unfinished platform work of one channel.
type Backlog struct {
	Channel string
	Depth   int
	Oldest  time.Time
}

// TaskMaxError bounds the length of LastError kept by stores.
const TaskMaxError = 300

// MaxReplayKey bounds the length of a ReplayGuard key: callers pass a
// digest or a platform's id, not the request.
const MaxReplayKey = 256

// MaxReplayTTL bounds how long a ReplayGuard remembers a key.
const MaxReplayTTL = 24 * time.Hour

// CheckReplayKey checks a FirstSeen call's arguments, the same way for
// every store: a key of 1 to MaxReplayKey bytes and a ttl from 1 ms to
// MaxReplayTTL.
func CheckReplayKey(key string, ttl time.Duration) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: replay key: empty", ErrInvalid)
	case len(key) > MaxReplayKey:
		return fmt.Errorf("%w: replay key: %d bytes, at most %d (pass a digest)", ErrInvalid, len(key), MaxReplayKey)
	case ttl < time.Millisecond || ttl > MaxReplayTTL:
		return fmt.Errorf("%w: replay ttl: %s is outside 1ms–%s", ErrInvalid, ttl, MaxReplayTTL)
	}
	return nil
}
