package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/askbridge/askbridge/internal/due"
)

// Config holds what a Broker needs. Only Store is required.
type Config struct {
	Store Store
	// Routes by name; a question without a route gets "default".
	Routes map[string]Route
	// DefaultTimeout applies when neither the question nor its route
	// sets one (30 minutes when zero).
	DefaultTimeout time.Duration
	// ReminderPoints are fractions of the time to the deadline at which
	// reminders go out; nil means 0.5 and 0.9, empty means none.
	ReminderPoints []float64
	// PostTimeout bounds one channel's Post (15 s when zero).
	PostTimeout time.Duration
	// Grace is how long an ask, a reminder or an escalation waits for
	// the first attempts of its platform work (2 s when zero): long
	// enough to answer unsupported when every target fails for good,
	// short enough that a slow platform never holds the agent.
	Grace    time.Duration
	Location *time.Location
	Logger   *slog.Logger
	Now      func() time.Time
	// Observer, when set, hears of every ask and resolution made here.
	Observer Observer
	// PendingPerAgent caps the pending questions of one agent: an ask
	// beyond it fails with a *LimitError (DefaultPendingPerAgent when
	// zero; negative means no cap).
	PendingPerAgent int
	// QuestionsOff names the agents whose questions are never posted: an
	// ask of theirs is stored and resolved at once as unsupported with
	// ReasonQuestionsOff (for unattended runs that must not wait on
	// people).
	QuestionsOff map[string]bool
	// OnBehalfOf names, by agent, the people each agent acts for
	// ("channel:user-id" or "user-id"): its questions are asked for them
	// (see Policy.ForbidRequester).
	OnBehalfOf map[string][]string
	// People is the directory of people and groups (people.go): who an
	// account belongs to, for responder lists that name "person:ana" or
	// "group:sre", quorums that count people, and forbid_requester. Nil
	// knows nobody.
	People *People
	// ChannelLocales are the channels' own locales (channels.X.locale), by
	// channel name, as i18n.Parse returns them (languages.go).
	ChannelLocales map[string]string
}

// DefaultPendingPerAgent is the cap on one agent's pending questions when
// Config sets none.
const DefaultPendingPerAgent = 1000

// pendingSetting is the configuration key of the bridge that sets
// Config.PendingPerAgent; a *LimitError names it.
const pendingSetting = "limits.pending_per_agent"

// Observer hears what the broker does, for metrics.
type Observer interface {
	Asked(q *Question)
	Resolved(q *Question)
}

// defaultReminderPoints are the reminder points used when none are set.
var defaultReminderPoints = []float64{0.5, 0.9}

// DefaultRoute is the route of questions that name none.
const DefaultRoute = "default"

// Broker runs the lifecycle of questions. It is safe for concurrent use.
type Broker struct {
	cfg      Config
	store    Store
	log      *slog.Logger
	channels map[string]Channel

	mu      sync.Mutex
	waiters map[string]map[chan *Question]func()
	// resolving counts the Resolve calls of this instance under way, by
	// question: the feed's wake for such a question is left to the call,
	// which wakes the waiters with the question it has (wait.go).
	resolving map[string]int
	// followers are woken by any resolution of their agent (wait.go).
	followers map[string]map[chan struct{}]struct{}

	// delivery carries out the platform work of the store's outbox
	// (delivery.go); nil until the application wires one.
	delivery Deliverer
	// due tells the sweeper of timed work written here (nextdue.go).
	due *due.Signal
	// known remembers the pending questions asked here (known.go).
	known *known
	// talk wakes the sessions' long-polls and logs refused senders once
	// (conversation.go).
	talk talkState
}

// New returns a Broker for cfg.
func New(cfg Config) (*Broker, error) {
	if cfg.Store == nil {
		return nil, errors.New("broker: a store is required")
	}
	if cfg.DefaultTimeout == 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	if err := CheckTimeout(cfg.DefaultTimeout); err != nil {
		return nil, fmt.Errorf("broker: default timeout: %w", err)
	}
	if cfg.ReminderPoints == nil {
		cfg.ReminderPoints = defaultReminderPoints
	}
	if err := ValidateReminders("reminders", cfg.ReminderPoints, 0); err != nil {
		return nil, fmt.Errorf("broker: %w", err)
	}
	if cfg.PostTimeout == 0 {
		cfg.PostTimeout = 15 * time.Second
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.Location == nil {
		cfg.Location = time.UTC
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Routes == nil {
		cfg.Routes = map[string]Route{}
	}
	if cfg.PendingPerAgent == 0 {
		cfg.PendingPerAgent = DefaultPendingPerAgent
	}
	b := &Broker{
		cfg: cfg, store: cfg.Store, log: cfg.Logger,
		channels:  map[string]Channel{},
		waiters:   map[string]map[chan *Question]func(){},
		resolving: map[string]int{},
		followers: map[string]map[chan struct{}]struct{}{},
		due:       due.New(), known: newKnown(),
	}
	return b, nil
}

// Register adds a channel. Call it before Run and before the first Ask.
func (b *Broker) Register(ch Channel) {
	b.channels[ch.Name()] = ch
}

// Channel returns the registered channel of that name, if any.
func (b *Broker) Channel(name string) (Channel, bool) {
	ch, ok := b.channels[name]
	return ch, ok
}

// Location returns the time zone used in texts shown to people.
func (b *Broker) Location() *time.Location { return b.cfg.Location }

// Now returns the broker's clock reading.
func (b *Broker) Now() time.Time { return b.cfg.Now() }

// Run consumes the store's resolution feed and wakes waiters and
// followers until ctx ends.
func (b *Broker) Run(ctx context.Context) {
	for r := range b.store.Watch(ctx) {
		// Forgotten before the waiters wake: a waiter that started on
		// the remembered copy reads the store (known.go).
		b.known.forget(r.ID)
		b.wakeFromFeed(r.ID)
		b.wakeFollowers(r)
	}
}

// Close ends the platform work under way on this instance and waits for
// it (Deliverer.Close); what is left stays in the store's outbox for the
// next instance.
func (b *Broker) Close() {
	if b.delivery != nil {
		b.delivery.Close()
	}
}

// Ask validates req, stores the question as pending and posts it to every
// target of its route. Asking again with the same (agent, session_id,
// tool_call_id) returns the stored question with created false; with a
// different body it fails with ErrConflict. When the agent already has
// Config.PendingPerAgent pending questions a new one fails with a
// *LimitError (asking again for an existing one does not). When no target
// can take the question it is resolved at once as unsupported.
func (b *Broker) Ask(ctx context.Context, agent string, req *AskRequest) (*Question, bool, error) {
	a, err := b.AskWithWarnings(ctx, agent, req)
	return a.Question, a.Created, err
}

// AskWithWarnings is Ask that also returns the warnings for the agent: a
// pending question that nobody watches says so (unwatched.go), and on a
// route with unwatched: escalate it is escalated at once.
func (b *Broker) AskWithWarnings(ctx context.Context, agent string, req *AskRequest) (Asked, error) {
	q, created, err := b.ask(ctx, agent, req)
	if err != nil {
		return Asked{Question: q, Created: created}, err
	}
	return Asked{Question: q, Created: created, Warnings: b.unwatched(ctx, q, created)}, nil
}

func (b *Broker) ask(ctx context.Context, agent string, req *AskRequest) (*Question, bool, error) {
	prompts, err := validateRequest(req)
	if err != nil {
		return nil, false, err
	}
	q, err := b.newQuestion(agent, req, prompts)
	if err != nil {
		return nil, false, err
	}
	var stored *Question
	var created bool
	local, _ := b.splitTargets(q.Targets)
	for range 8 {
		q.ID = NewID()
		stored, created, err = b.store.CreateCapped(ctx, q, local, b.cfg.PendingPerAgent)
		if !errors.Is(err, ErrIDTaken) {
			break
		}
	}
	if err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			le.Setting = pendingSetting
			b.log.Debug("ask refused: pending limit", "agent", agent, "limit", le.Limit)
			return nil, false, le
		}
		return nil, false, fmt.Errorf("broker: store question: %w", err)
	}
	if !created {
		if !sameAsk(stored.Fingerprint, q.Fingerprint) {
			return stored, false, fmt.Errorf("%w: session_id %q and tool_call_id %q already name question %s (%s) with a different body", ErrConflict, req.SessionID, req.ToolCallID, stored.ID, stored.Status)
		}
		return stored, false, nil
	}
	if b.cfg.Observer != nil {
		b.cfg.Observer.Asked(stored)
	}
	b.log.Info("question asked", "question_id", stored.ID, "agent", agent, "route", stored.Route, "prompts", len(stored.Prompts))
	stored = b.scheduleEscalation(ctx, stored)
	b.noteScheduled(stored)
	if stored.Status == StatusPending {
		// Before the posts: whatever answers it comes after, and forgets
		// it (known.go).
		b.known.remember(stored.Clone())
	}
	return b.post(ctx, stored), true, nil
}

// newQuestion builds the question of req on its route. The route decides
// the timeout, the reminder points and the responders unless req sets
// them; req's own responders and reminder points are checked against them
// here. Inherited reminder points too close together for this timeout are
// dropped (see spacedReminders).
func (b *Broker) newQuestion(agent string, req *AskRequest, prompts []Prompt) (*Question, error) {
	now := b.cfg.Now().UTC().Truncate(time.Millisecond)
	routeName := req.Route
	if routeName == "" {
		routeName = DefaultRoute
	}
	route := b.cfg.Routes[routeName]
	timeout := b.cfg.DefaultTimeout
	if route.Timeout > 0 {
		timeout = route.Timeout
	}
	if req.Timeout != nil {
		timeout = time.Duration(*req.Timeout)
	}
	if err := validateRouted(req, route, timeout, b.cfg.People); err != nil {
		return nil, err
	}
	points := b.cfg.ReminderPoints
	if route.Reminders != nil {
		points = route.Reminders
	}
	points = spacedReminders(points, timeout)
	if req.Reminders != nil {
		points = req.Reminders
	}
	responders := req.Responders
	if len(responders) == 0 {
		responders = route.Responders
	}
	q := &Question{
		Agent: agent, SessionID: req.SessionID, ToolCallID: req.ToolCallID,
		Prompts: prompts, Route: routeName, Targets: route.Targets,
		Timeout: timeout, Context: req.Context, Responders: responders,
		CallbackURL: req.CallbackURL, Fingerprint: Fingerprint(req, prompts), Conversation: req.Conversation,
		Status: StatusPending, CreatedAt: now, ExpiresAt: now.Add(timeout),
	}
	if err := b.applyPolicy(q, agent, req, route, prompts); err != nil {
		return nil, err
	}
	for _, p := range points {
		q.Reminders = append(q.Reminders, now.Add(time.Duration(p*float64(timeout))).Truncate(time.Millisecond))
	}
	if req.Lease != nil {
		q.Lease = time.Duration(*req.Lease)
		q.LeaseUntil = now.Add(q.Lease)
	}
	return q, nil
}

// Get returns the agent's question, or ErrNotFound (also for another
// agent's question).
func (b *Broker) Get(ctx context.Context, agent, id string) (*Question, error) {
	q, err := b.settled(ctx, id)
	if err == nil && q.Agent != agent {
		err = ErrNotFound
	}
	if errors.Is(err, ErrNotFound) {
		// The same words for an unknown question and another agent's.
		return nil, fmt.Errorf("%w: there is no question %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, err
	}
	return q, nil
}

// settled returns question id as it was resolved here moments ago
// (known.go), or reads it from the store.
func (b *Broker) settled(ctx context.Context, id string) (*Question, error) {
	if q := b.known.settled(id, b.cfg.Now()); q != nil {
		return q, nil
	}
	return b.store.Get(ctx, id)
}

// List returns questions matching f.
func (b *Broker) List(ctx context.Context, f Filter) ([]*Question, error) {
	return b.store.List(ctx, f)
}

// Resolve ends a pending question with r through the store's
// compare-and-set, then wakes its waiters and updates every posted copy.
// A closed question gives a *ClosedError.
func (b *Broker) Resolve(ctx context.Context, id string, r Resolution) (*Question, error) {
	if r.ResolvedAt.IsZero() {
		r.ResolvedAt = b.cfg.Now().UTC().Truncate(time.Millisecond)
	}
	b.startResolving(id)
	q, err := b.store.Resolve(ctx, id, r)
	// Resolved, closed before, or unknown: in any case no longer the
	// pending question remembered, and forgotten before the wake.
	b.known.forget(id)
	if err != nil {
		// Whatever happened to the question, its waiters read it again:
		// the feed's wake, if any, was left to this call.
		b.endResolving(id, nil)
		return q, err
	}
	b.known.settle(q)
	b.endResolving(id, q)
	b.log.Info("question resolved", "question_id", q.ID, "status", q.Status, "fallback", q.Fallback)
	if b.cfg.Observer != nil {
		b.cfg.Observer.Resolved(q)
	}
	b.updateCopies(q)
	return q, nil
}

// Cancel ends the agent's pending question as cancelled.
func (b *Broker) Cancel(ctx context.Context, agent, id, reason string) (*Question, error) {
	reason, err := checkReason(reason)
	if err != nil {
		return nil, err
	}
	if _, err := b.Get(ctx, agent, id); err != nil {
		return nil, err
	}
	if reason == "" {
		reason = "cancelled by the agent"
	}
	return b.Resolve(ctx, id, Resolution{Status: StatusCancelled, Reason: reason})
}

// cancelBatch is how many pending questions CancelSession lists at once.
const cancelBatch = 500

// CancelSession cancels every pending question of the agent's session and
// returns the cancelled questions. It lists them in batches until none is
// left, since a store bounds one List.
func (b *Broker) CancelSession(ctx context.Context, agent, session, reason string) ([]*Question, error) {
	if session == "" {
		return nil, fieldErr("session_id", "must not be empty")
	}
	reason, err := checkReason(reason)
	if err != nil {
		return nil, err
	}
	if reason == "" {
		reason = "the agent's session was cancelled"
	}
	var out []*Question
	// seen ends the loop should a List return questions already handled
	// (a replica behind its master), so that it cannot spin.
	seen := map[string]bool{}
	for {
		qs, err := b.store.List(ctx, Filter{Agent: agent, SessionID: session, Status: StatusPending, Limit: cancelBatch})
		if err != nil {
			return out, err
		}
		fresh := 0
		for _, q := range qs {
			if seen[q.ID] {
				continue
			}
			seen[q.ID] = true
			fresh++
			r, err := b.Resolve(ctx, q.ID, Resolution{Status: StatusCancelled, Reason: reason})
			if errors.Is(err, ErrClosed) {
				continue
			}
			if err != nil {
				return out, err
			}
			out = append(out, r)
		}
		if len(qs) < cancelBatch || fresh == 0 {
			return out, nil
		}
	}
}
