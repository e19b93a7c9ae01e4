package broker

import (
	"context"
	"time"
)

// This file is the whole store contract: Store, the roles it is made of,
// and AuditRetainer, the one capability that only some stores have. The
// records and filters the methods carry are in store_types.go.
//
// Every method is safe for concurrent use, on one instance and on every
// instance sharing the store. Errors are wrapped, to be checked with
// errors.Is: every method returns ErrUnavailable when the backing service
// cannot be reached or the store is closed; a question id that names no
// stored question gives ErrNotFound where a method reads or changes that
// question; arguments a method cannot take give ErrInvalid, and then
// nothing is changed. "One atomic step" means that every instance sees
// all of the step's changes or none of them, and a failed step leaves
// none behind.

// Store keeps questions, their posted copies, the resolution event log,
// the callback and platform outboxes and everything else an instance of
// the bridge shares with the others. It is the authority: every instance
// re-reads from it, and every change of status is a compare-and-set in it.
//
// Store is composed of roles, one per kind of user, and only the code
// that opens a store (cmd/bridge, with store/storeconfig) and the stores
// themselves handle the whole: the broker takes it, and every other
// consumer is handed only the role it works with (the timeouts sweeper
// the Schedule, the callback deliverer the Outbox and the Feed, the web
// inbox the Sessions and the Inbox, the webhooks the ReplayGuard, the API
// what it reads beside the broker).
//
// Implementations: store/sqlite (embedded default) and store/redis. Both
// pass the conformance suite in broker/brokertest.
type Store interface {
	Questions
	Messages
	Schedule
	EventLog
	Feed
	Outbox
	Attachments
	Sessions
	ReplayGuard
	PolicyStore
	Housekeeping
	PlatformOutbox
	RuleStore
	Conversations
	Inbox
}

// Lookup reads one question. The roles that name questions by id embed
// it, so that their user can read what an id stands for.
type Lookup interface {
	// Get returns the question as stored, or ErrNotFound.
	Get(ctx context.Context, id string) (*Question, error)
}

// Questions is the record of questions: how they are stored, listed,
// answered and resolved. The broker is its only user.
type Questions interface {
	Lookup

	// Create stores q as a pending question. inProcess names the
	// targets of q.Targets whose copies the broker makes in its own
	// process (channels that implement InProcess for that chat): for
	// each, Create records the copy as posted at q.CreatedAt under the
	// question's id, as AddMessage would; for every other target it
	// queues a post task (PlatformOutbox). The question, its copies,
	// its post tasks and the first entries of its audit trail
	// (CreatedAudit) are one atomic step.
	//
	// When q.ToolCallID is not empty and a question with the same
	// (Agent, SessionID, ToolCallID) exists, it stores nothing and
	// returns that question with created == false. A target of
	// inProcess that is not one of q.Targets, or a q without an id,
	// gives ErrInvalid (CheckInProcess). An id in use, by a question or
	// by an audit trail kept from a purged one, gives ErrIDTaken. A new
	// question may be returned as q itself, or share q's slices and
	// maps, with the status and times it was stored with; the store
	// keeps nothing that q or inProcess shares, so changing them
	// afterwards changes nothing stored.
	Create(ctx context.Context, q *Question, inProcess []Target) (stored *Question, created bool, err error)
	// CreateCapped is Create with a cap on the agent's pending questions:
	// when q would be stored as a new question and q.Agent already has max
	// pending ones, it stores nothing and returns a *LimitError (ErrLimit).
	// Finding the question of an existing (Agent, SessionID, ToolCallID)
	// is never refused. The count and the insert are one atomic step, so
	// that concurrent calls, on any instance, never overshoot max. max <=
	// 0 means no cap.
	CreateCapped(ctx context.Context, q *Question, inProcess []Target, max int) (stored *Question, created bool, err error)

	// Resolve sets the terminal state r on a pending question and returns
	// the updated question. Exactly one of any number of concurrent calls
	// for one question succeeds; the others get a *ClosedError (ErrClosed)
	// holding the question as it stands. A conditional resolution
	// (r.IfProgress, r.IfRev) whose condition no longer holds gives
	// ErrConflict; a status that is not terminal gives ErrInvalid. In the
	// same atomic step it appends an Event to the event log, the
	// resolution to the audit trail, the edit tasks of its posted copies
	// to the platform outbox and, when the question has a CallbackURL, a
	// Delivery to the callback outbox; then it publishes the id on the
	// resolution feed.
	Resolve(ctx context.Context, id string, r Resolution) (*Question, error)

	// SaveProgress records the answer to prompt index i of a pending
	// multi-prompt dialog, in one atomic step, unless that prompt already
	// has one (first answer wins: ErrConflict). It returns the updated
	// question. A closed question gives a *ClosedError, a prompt the
	// question does not have ErrInvalid.
	SaveProgress(ctx context.Context, id string, i int, a Answer) (*Question, error)

	// SetSelection replaces the toggled options of multi-select prompt i
	// of a pending question, in one atomic step, and returns the updated
	// question. A closed question gives a *ClosedError, a prompt the
	// question does not have ErrInvalid.
	SetSelection(ctx context.Context, id string, i int, options []int) (*Question, error)

	// List returns the questions f selects, newest first, at most
	// f.Limit (see Filter). It reads; it changes nothing.
	List(ctx context.Context, f Filter) ([]*Question, error)

	// CountPending returns how many questions are pending, of every
	// agent. It is cheap (an index or a counter, not a scan), so that it
	// can be read at every metrics scrape.
	CountPending(ctx context.Context) (int, error)
}

// Messages remembers the copies of questions posted on platforms, so that
// every copy can be edited and a reply on a platform found its question.
type Messages interface {
	// AddMessage remembers a posted copy of question id, and appends its
	// PostedAudit entry to the question's audit trail, in one atomic
	// step. A copy without a channel gives ErrInvalid.
	AddMessage(ctx context.Context, id string, m MessageRef) error
	// Messages lists the posted copies of a question, oldest first,
	// those Create recorded among them. An unknown question has none, or
	// gives ErrNotFound.
	Messages(ctx context.Context, id string) ([]MessageRef, error)
	// LookupMessage finds the question a platform message belongs to, or
	// gives ErrNotFound. Channel and chat are part of the key: the same
	// message id in another chat is another message.
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
	// question as sent, if no more than n-1 were marked, as one
	// compare-and-set; it reports whether this call made the mark, so
	// each reminder is sent once, whichever instance asks. A reminder
	// number the question does not have may give ErrInvalid.
	ClaimReminder(ctx context.Context, id string, n int) (bool, error)
	// RenewLease moves the lease of a pending question to until. A
	// closed question gives a *ClosedError.
	RenewLease(ctx context.Context, id string, until time.Time) error
	// LapsedLeases returns up to limit ids of pending questions whose
	// lease ended at or before now.
	LapsedLeases(ctx context.Context, now time.Time, limit int) ([]string, error)
	// NextScheduled returns the earliest time at which something in the
	// schedule falls due: a deadline, a reminder, the end of a lease or
	// an escalation step (PolicyStore.DueEscalations) of a pending
	// question; ok is false when nothing is scheduled. The time may be in
	// the past (work left for the next sweep), and it may be earlier than
	// anything still due: the escalation step of a question resolved
	// since, until the sweep at its time drops it (DueEscalations); it is
	// never later than the earliest entry still due. It reads the first
	// entry of an index, so that the sweeper can ask after every sweep
	// and sleep until then.
	NextScheduled(ctx context.Context) (at time.Time, ok bool, err error)
}

// EventLog is the durable record of resolutions and deadline extensions,
// read by agents that follow their questions as a stream (GET /v1/events)
// and resume after the last event they saw.
type EventLog interface {
	// Events returns up to limit events (resolutions and extensions)
	// after sequence number after, oldest first; agent filters when not
	// empty. A limit of 0 or less means the store's default, which may
	// be a bound: read everything with a loop.
	Events(ctx context.Context, agent string, after int64, limit int) ([]Event, error)
}

// Feed tells of resolutions and deadline extensions as they happen, so
// that whoever waits on them re-reads at once instead of polling.
type Feed interface {
	// Watch returns the resolution feed: the questions as they are
	// resolved or their deadlines extended, on this instance and (for
	// shared stores) on others. It is a hint, not the record: an empty
	// ID means "re-check every question you wait for" (sent after a lost
	// connection). The channel closes when ctx ends.
	Watch(ctx context.Context) <-chan Resolved
}

// Outbox holds the webhook callbacks of resolutions until they are
// delivered or given up, for the callback deliverers of every instance
// (which claim work from it) and for the API (which reports on it).
// Resolve enqueues a delivery in the step that resolves its question.
type Outbox interface {
	Lookup

	// ClaimDeliveries returns up to limit pending callback deliveries
	// that are due at now, and holds each for hold (moves its next
	// attempt to now+hold) in the same step, so that no other instance
	// claims it meanwhile. Each returned delivery carries its claim in
	// Claim. hold must be positive.
	ClaimDeliveries(ctx context.Context, now time.Time, limit int, hold time.Duration) ([]Delivery, error)
	// UpdateDelivery records the outcome of an attempt. When d.Claim is
	// set, it records only while that claim is still the delivery's: the
	// delivery is pending and has not been claimed again since (after the
	// hold ran out); otherwise it changes nothing and returns ErrConflict.
	// An unknown delivery gives ErrNotFound.
	UpdateDelivery(ctx context.Context, d Delivery) error
	// Deliveries lists the callback deliveries of a question, oldest
	// first; none for a question without a callback, or an unknown one.
	Deliveries(ctx context.Context, questionID string) ([]Delivery, error)
	// NextDelivery returns when the earliest pending delivery falls due
	// (for a claimed one, when its hold ends); ok is false when there is
	// none. The time may be in the past. It reads the first entry of an
	// index, so that the deliverer can sleep until then.
	NextDelivery(ctx context.Context) (at time.Time, ok bool, err error)
}

// Attachments keeps the files of answers beside their question, so that
// people can answer with files; files go when their question is purged or
// expires. It is the role of the Store the broker stores files with.
type Attachments interface {
	// PutAttachment stores f with pending question id and returns its
	// number. When the question's files would pass maxTotal bytes it
	// stores nothing and returns an error matching ErrLimit; a closed
	// question gives a *ClosedError, an unknown one ErrNotFound. The
	// check and the write are one atomic step.
	PutAttachment(ctx context.Context, id string, f File, maxTotal int64) (int, error)
	// GetAttachment returns file n of question id, or ErrNotFound.
	GetAttachment(ctx context.Context, id string, n int) (*File, error)
	// ListAttachments lists the files of question id without their
	// bytes, by number; none for an unknown question.
	ListAttachments(ctx context.Context, id string) ([]File, error)
	// DeleteAttachments removes files ns of question id; unknown numbers
	// are not an error.
	DeleteAttachments(ctx context.Context, id string, ns []int) error
}

// Sessions keeps the sign-in sessions of the web inbox in the store, so
// that a session made on one bridge instance is accepted by every other,
// and signing out ends it everywhere. It is the web inbox's role of the
// Store.
//
// Sessions are known only by a digest: the web inbox gives each browser a
// random session id and passes the store a keyed hash of it, so what the
// store holds cannot sign anyone in.
type Sessions interface {
	// CreateSession stores a session under digest, valid until expires.
	// An empty digest gives ErrInvalid.
	CreateSession(ctx context.Context, digest string, expires time.Time) error
	// CheckSession reports whether a session is stored under digest and
	// has not expired at now.
	CheckSession(ctx context.Context, digest string, now time.Time) (bool, error)
	// DeleteSession removes the session; removing an unknown or expired
	// one is not an error.
	DeleteSession(ctx context.Context, digest string) error
}

// ReplayGuard remembers, for a while, the keys of requests already taken,
// so that a signed request sent a second time within its signature's
// window (a replay, or a platform's redelivery) is dropped, whichever
// bridge instance receives the copy. It is the webhooks' role of the
// Store; the Slack channel keys it by a digest of each signed request and
// by Events API event id.
type ReplayGuard interface {
	// FirstSeen records key for ttl and reports whether it was new: true
	// for exactly one of any number of calls with one key, on any
	// instance, until ttl has passed since that call; then the key is new
	// again. A bad key or ttl (CheckReplayKey) gives an ErrInvalid error
	// and records nothing.
	FirstSeen(ctx context.Context, key string, ttl time.Duration) (bool, error)
}

// PolicyStore is the role of a Store that keeps the state of a question's
// team policies (votes, snoozes, escalations) and its audit trail
// (AuditLog). Every change of that state is a compare-and-set on its
// revision, so that two instances acting on one question at the same
// instant never lose a change: one of them fails with ErrConflict, reads
// again and retries.
type PolicyStore interface {
	AuditLog

	// Amend replaces the policy state of a pending question whose state
	// revision is still rev with a.State (stored with revision rev+1),
	// moves its deadline and reminders when a.ExpiresAt is set, appends
	// a.Audit to its audit log and, with a.Extended, the extended event to
	// the event log, all in one atomic step. It returns the updated
	// question. A closed question gives a *ClosedError; a revision other
	// than rev gives ErrConflict; an Extended amendment without a snooze
	// or a new deadline gives ErrInvalid (Amendment.ExtendedEvent).
	Amend(ctx context.Context, id string, rev int64, a Amendment) (*Question, error)
	// DueEscalations returns up to limit ids of pending questions whose
	// next escalation step (State.EscalateAt, indexed by Amend) is at or
	// before now, earliest first.
	DueEscalations(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// AuditLog is the role of a Store that keeps the audit trail of every
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
	// AddAudit appends entries to the trail of a question, in one atomic
	// step (for actions that change nothing, such as a refused vote). An
	// unknown question, or one purged, gives ErrNotFound.
	AddAudit(ctx context.Context, id string, entries ...AuditEntry) error
	// Audit returns the trail of a question, oldest first, also after
	// the question was purged; a question with neither a record nor a
	// trail gives ErrNotFound.
	Audit(ctx context.Context, id string) ([]AuditEntry, error)
	// AuditSince returns the entries f selects, oldest first by time,
	// question and seq; a filter AuditFilter.Check refuses gives
	// ErrInvalid.
	AuditSince(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
	// PurgeAudit removes the trails whose newest entry is before
	// before, and returns how many entries went. It works in batches: an
	// error may come after some trails went.
	PurgeAudit(ctx context.Context, before time.Time) (int, error)
}

// AuditRetainer is implemented by a store whose audit trails expire by
// themselves (store/redis: keys with a time to live), and by no other:
// SetAuditRetention, called before the store is used, says for how long
// after its newest entry a trail is kept (DefaultAuditRetention until
// then). cmd/bridge finds it by type assertion; a store without it keeps
// trails until PurgeAudit.
type AuditRetainer interface {
	SetAuditRetention(d time.Duration)
}

// Housekeeping is what the process that owns a store does with it beside
// the work: check it, keep it small, release it.
type Housekeeping interface {
	// Purge removes questions resolved before before, with their
	// messages, events, files and finished deliveries, and returns how
	// many questions went. It works in batches: an error may come after
	// some questions went. Audit trails stay (AuditLog).
	Purge(ctx context.Context, before time.Time) (int, error)
	// Ping checks that the store is reachable.
	Ping(ctx context.Context) error
	// Close releases the store; later calls give ErrUnavailable. A
	// second Close is not an error.
	Close() error
}

// PlatformOutbox is the role of the Store that keeps the platform work of
// questions: one task per (question, kind, target) that posts the copy,
// edits it, or sends a reminder under it. Create writes the post tasks of
// every target of a question that is not in-process and Resolve writes
// the edit tasks, each in the same atomic step as the change that needs
// them, so that a crash after the change can never lose the work. Any
// instance may claim a due task; a claim holds it for a while, and the
// outcome of an attempt is recorded only while the claim is still the
// task's (as with callback deliveries).
//
// A task is renewed rather than duplicated: asking again for a task that
// exists raises its generation (Gen). An attempt records its outcome with
// the generation it carries out (for an edit, the one read just before the
// question it shows, so a renewal whose change it already shows is not
// made twice); when the task was renewed past that generation, a finished
// outcome leaves the task due again at once, so that the newest state of
// the question is always the last one shown, and attempts on one task
// never overlap.
type PlatformOutbox interface {
	// ClaimPlatformWork returns up to limit tasks due at now (of question
	// questionID only, when it is not empty) and holds each until
	// now+hold, in the same step; each carries its claim in Claim. A hold
	// that is not positive gives ErrInvalid.
	ClaimPlatformWork(ctx context.Context, questionID string, now time.Time, limit int, hold time.Duration) ([]PlatformTask, error)
	// UpdatePlatformWork records the outcome of an attempt on a claimed
	// task: State, Attempts, NextAt, ErrorClass, LastError, MessageID and
	// UpdatedAt. It records only while t.Claim is still the task's claim;
	// otherwise it changes nothing and returns ErrConflict. A task whose
	// generation moved past t.Gen stays due at once whatever the outcome,
	// with the outcome's attempts and last error. An unknown state or
	// error class, or a task without a claim, gives ErrInvalid.
	UpdatePlatformWork(ctx context.Context, t PlatformTask) error
	// EnqueuePlatformWork adds, or renews, the task of kind for each
	// target of question id, due at now, given up after deadline, in one
	// atomic step. A renewed task that is not claimed now becomes due at
	// once; a claimed one keeps its claim (see the generation above). An
	// unknown kind or a target without a channel gives ErrInvalid, an
	// unknown question ErrNotFound.
	EnqueuePlatformWork(ctx context.Context, id string, kind TaskKind, targets []Target, now, deadline time.Time) error
	// PlatformWork lists the tasks of a question, posts first, then by
	// kind and target; none for an unknown question. A task stored
	// before ErrorClass was kept apart comes with its last error read by
	// DecodeLastError, as every method that returns tasks gives them.
	PlatformWork(ctx context.Context, id string) ([]PlatformTask, error)
	// PlatformBacklog counts the unfinished tasks of each channel, with
	// the creation time of the oldest.
	PlatformBacklog(ctx context.Context) ([]Backlog, error)
	// NextPlatformWork returns when the earliest unfinished (queued or
	// retrying) task falls due (for a claimed task, when its claim
	// lapses); ok is false when there is none. The time may be in the
	// past. It reads the first entry of an index, so that the outbox loop
	// can sleep until then.
	NextPlatformWork(ctx context.Context) (at time.Time, ok bool, err error)
	// Pace reserves the next free slot of the pacing key: slots are at
	// least interval apart, across every instance on the store. When the
	// next free slot is within maxWait of now it is taken and returned
	// with ok, as one compare-and-set; otherwise nothing is taken and the
	// slot's time is returned so that the caller can come back then. An
	// empty key gives ErrInvalid.
	Pace(ctx context.Context, key string, interval time.Duration, now time.Time, maxWait time.Duration) (at time.Time, ok bool, err error)
	// HoldPace moves the next free slot of key to until when it is
	// earlier (a platform's "retry after"). An empty key gives
	// ErrInvalid.
	HoldPace(ctx context.Context, key string, until time.Time) error
}

// RuleStore is the role of a Store that keeps the approval rules
// (rules.go), shared by every instance of the bridge. Rules are few (a
// team makes tens, not thousands), so they are read whole.
type RuleStore interface {
	// AddRule stores r (checked by the caller) under a new id, drawn
	// from a counter that never gives an id twice, also to concurrent
	// calls on several instances; it returns the rule as stored.
	AddRule(ctx context.Context, r Rule) (*Rule, error)
	// Rules returns the rules f selects, oldest (lowest id) first.
	Rules(ctx context.Context, f RuleFilter) ([]Rule, error)
	// RevokeRule marks rule id revoked at at by by, and returns it. A
	// rule already revoked keeps its first revocation and is returned as
	// it stands; an unknown id gives ErrNotFound.
	RevokeRule(ctx context.Context, id int64, by Responder, at time.Time) (*Rule, error)
}

// Conversations is the role of a Store that keeps the conversations of
// live agent sessions (conversation.go): what people wrote on a
// conversation question once it ended, and the agent's replies, per
// (agent, session), each kept until its ExpiresAt, at most
// MaxSessionMessages per conversation (the oldest go first). It also
// remembers when a session last listened, so that every instance can tell
// a person whether anyone will read what they write.
type Conversations interface {
	// AddSessionMessage appends m to the conversation of (m.Agent,
	// m.SessionID) under the next sequence number of that conversation,
	// which it returns, in one atomic step. Numbers grow strictly within
	// a conversation, also across instances, and the messages are
	// returned in their order.
	AddSessionMessage(ctx context.Context, m SessionMessage) (int64, error)
	// SessionMessages returns up to limit messages of the conversation
	// with a number above after, oldest first, leaving out those expired
	// at now, and the highest number the conversation has given (0 when
	// it has none; it may restart from 0 once a conversation was idle for
	// longer than its messages are kept).
	SessionMessages(ctx context.Context, agent, session string, after int64, now time.Time, limit int) (msgs []SessionMessage, latest int64, err error)
	// MarkListening records that the session listened at at; the mark is
	// kept until until.
	MarkListening(ctx context.Context, agent, session string, at, until time.Time) error
	// ListenedAt returns when the session last listened, or the zero time
	// when it never did or the mark expired.
	ListenedAt(ctx context.Context, agent, session string, now time.Time) (time.Time, error)
}
