package broker

import (
	"context"
	"time"
)

// Store keeps questions, their posted copies, the resolution event log and
// the callback outbox. It is the authority: every instance of the bridge
// re-reads from it, and every change of status is a compare-and-set in it.
//
// Store is composed of roles, one per kind of user, and only the code
// that opens a store (cmd/bridge, with store/storeconfig) and the stores
// themselves handle the whole: the broker takes it, and every other
// consumer is handed only the role it works with (the timeouts sweeper
// the Schedule, the callback deliverer the Outbox and the Feed, the web
// inbox the Sessions, the webhooks the ReplayGuard, the API what it
// reads beside the broker).
//
// Implementations: store/sqlite (embedded default) and store/redis. Both
// pass the conformance suite in broker/brokertest. All methods are safe for
// concurrent use. Methods return ErrUnavailable (wrapped) when the backing
// service cannot be reached.
type Store interface {
	Questions
	Messages
	Schedule
	EventLog
	Feed
	Outbox
	Attachments
	Sessions
	// ReplayGuard drops replayed webhook requests (store_replay.go).
	ReplayGuard
	PolicyStore
	Housekeeping
	// PlatformOutbox keeps the platform work of questions
	// (store_outbox.go).
	PlatformOutbox
	// RuleStore keeps the approval rules (store_rules.go).
	RuleStore
	// Conversations keeps the conversations of live agent sessions
	// (store_conversations.go).
	Conversations
}

// Lookup reads one question. The roles that name questions by id embed
// it, so that their user can read what an id stands for.
type Lookup interface {
	// Get returns the question, or ErrNotFound.
	Get(ctx context.Context, id string) (*Question, error)
}

// Questions is the record of questions: how they are stored, listed,
// answered and resolved. The broker is its only user.
type Questions interface {
	Lookup

	// Create stores q (status pending). When q.ToolCallID is not empty and
	// a question with the same (Agent, SessionID, ToolCallID) exists, it
	// stores nothing and returns that question with created == false.
	// When q.ID is in use it returns ErrIDTaken. A new question may be
	// returned as q itself, or share q's slices and maps, with the status
	// and times it was stored with; the store keeps nothing that q
	// shares, so changing q afterwards changes nothing stored.
	Create(ctx context.Context, q *Question) (stored *Question, created bool, err error)
	// CreateCapped is Create with a cap on the agent's pending questions:
	// when q would be stored as a new question and q.Agent already has max
	// pending ones, it stores nothing and returns a *LimitError. Finding
	// the question of an existing (Agent, SessionID, ToolCallID) is never
	// refused. The count and the insert are one atomic step, so that
	// concurrent calls, on any instance, never overshoot max. max <= 0
	// means no cap.
	CreateCapped(ctx context.Context, q *Question, max int) (stored *Question, created bool, err error)

	// Resolve sets the terminal state r on a pending question and returns
	// the updated question. Exactly one of any number of concurrent calls
	// for one question succeeds; the others get a *ClosedError holding the
	// question as it stands. In the same atomic step it appends an Event
	// to the event log and, when the question has a CallbackURL, enqueues a
	// Delivery; then it publishes the id on the resolution feed.
	Resolve(ctx context.Context, id string, r Resolution) (*Question, error)

	// SaveProgress records the answer to prompt index i of a pending
	// multi-prompt dialog, unless that prompt already has one (first answer
	// wins: ErrConflict). It returns the updated question; a closed
	// question gives a *ClosedError.
	SaveProgress(ctx context.Context, id string, i int, a Answer) (*Question, error)

	// SetSelection replaces the toggled options of multi-select prompt i
	// of a pending question and returns the updated question.
	SetSelection(ctx context.Context, id string, i int, options []int) (*Question, error)

	// List returns questions matching f, newest first.
	List(ctx context.Context, f Filter) ([]*Question, error)

	// CountPending returns how many questions are pending, of every
	// agent. It is cheap (an index or a counter, not a scan), so that it
	// can be read at every metrics scrape.
	CountPending(ctx context.Context) (int, error)
}

// Messages remembers the copies of questions posted on platforms, so that
// every copy can be edited and a reply on a platform found its question.
type Messages interface {
	// AddMessage remembers a posted copy of a question.
	AddMessage(ctx context.Context, id string, m MessageRef) error
	// Messages lists the posted copies of a question, oldest first.
	Messages(ctx context.Context, id string) ([]MessageRef, error)
	// LookupMessage finds the question a platform message belongs to, or
	// ErrNotFound.
	LookupMessage(ctx context.Context, channel, chat, messageID string) (string, error)
}

// Schedule finds the pending questions whose time has come: deadlines,
// reminders and the leases of waiting agents. The timeouts sweeper works
// through it, on every instance at once: the queries may name a question
// to several sweepers, and ClaimReminder and the broker's compare-and-set
// make sure only one acts.
type Schedule interface {
	Lookup

	// Due returns up to limit ids of pending questions whose deadline is
	// at or before now, earliest first.
	Due(ctx context.Context, now time.Time, limit int) ([]string, error)
	// DueReminders returns up to limit ids of pending questions whose next
	// reminder is at or before now.
	DueReminders(ctx context.Context, now time.Time, limit int) ([]string, error)
	// ClaimReminder marks reminder number n (1-based) of a pending
	// question as sent, if no more than n-1 were marked; it reports
	// whether this call made the mark, so each reminder is sent once.
	ClaimReminder(ctx context.Context, id string, n int) (bool, error)
	// RenewLease moves the lease of a pending question to until.
	RenewLease(ctx context.Context, id string, until time.Time) error
	// LapsedLeases returns up to limit ids of pending questions whose
	// lease ended at or before now.
	LapsedLeases(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// EventLog is the durable record of resolutions and deadline extensions,
// read by agents that follow their questions as a stream (GET /v1/events)
// and resume after the last event they saw.
type EventLog interface {
	// Events returns up to limit events (resolutions and extensions)
	// after sequence number after, oldest first; agent filters when not
	// empty.
	Events(ctx context.Context, agent string, after int64, limit int) ([]Event, error)
}

// Feed tells of resolutions and deadline extensions as they happen, so
// that whoever waits on them re-reads at once instead of polling.
type Feed interface {
	// Watch returns the resolution feed: the questions as they are
	// resolved or their deadlines extended, on this instance and (for
	// shared stores) on others. It is
	// a hint, not the record: an empty ID means "re-check every question
	// you wait for" (sent after a lost connection). The channel closes when
	// ctx ends.
	Watch(ctx context.Context) <-chan Resolved
}

// Outbox holds the webhook callbacks of resolutions until they are
// delivered or given up, for the callback deliverers of every instance
// (which claim work from it) and for the API (which reports on it).
type Outbox interface {
	Lookup

	// ClaimDeliveries returns up to limit callback deliveries that are due
	// at now, and holds each for hold (moves its next attempt to now+hold)
	// so that no other instance claims it meanwhile. Each returned
	// delivery carries its claim in Claim.
	ClaimDeliveries(ctx context.Context, now time.Time, limit int, hold time.Duration) ([]Delivery, error)
	// UpdateDelivery records the outcome of an attempt. When d.Claim is
	// set, it records only while that claim is still the delivery's: the
	// delivery is pending and has not been claimed again since (after the
	// hold ran out); otherwise it changes nothing and returns ErrConflict.
	UpdateDelivery(ctx context.Context, d Delivery) error
	// Deliveries lists the callback deliveries of a question.
	Deliveries(ctx context.Context, questionID string) ([]Delivery, error)
}

// Housekeeping is what the process that owns a store does with it beside
// the work: check it, keep it small, release it.
type Housekeeping interface {
	// Purge removes questions resolved before before, with their messages,
	// events and finished deliveries; it returns how many questions went.
	Purge(ctx context.Context, before time.Time) (int, error)
	// Ping checks that the store is reachable.
	Ping(ctx context.Context) error
	// Close releases the store.
	Close() error
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
