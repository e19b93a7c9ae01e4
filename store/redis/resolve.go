package redis

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// Resolve is the compare-and-set pending -> r.Status. The script also
// unindexes the question from the deadline, reminder and lease sets,
// enqueues the callback delivery, appends the resolution's audit entry
// (resolveAudited) and sets the record's expiry. Off
// Cluster the same script logs the event and publishes the id: one round
// trip. On Cluster a second round trip appends the event to the global
// log (slot {ev}) and publishes the id.
func (s *Store) Resolve(ctx context.Context, id string, r broker.Resolution) (*broker.Question, error) {
	if !r.Status.Terminal() {
		return nil, fmt.Errorf("redis store: resolve %s: %w", id, &broker.FieldError{Field: "status", Message: fmt.Sprintf("%q is not a terminal status", r.Status)})
	}
	if !validID(id) {
		return nil, fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	if r.ResolvedAt.IsZero() {
		r.ResolvedAt = time.Now().UTC()
	}
	res := resolution{
		Answers: r.Answers, Fallback: r.Fallback, Reason: r.Reason, NotReady: r.NotReady,
		AnsweredBy: r.AnsweredBy, ResolvedAt: r.ResolvedAt,
	}
	body, err := json.Marshal(&res)
	if err != nil {
		return nil, fmt.Errorf("redis store: resolve %s: encode: %w", id, err)
	}
	// The reply carries the resolution it stored, which is body: a copy of
	// res read it without decoding, when a copy is what a decode gives.
	var sent *sentResolution
	if asDecoded(res, body) {
		sent = &sentResolution{raw: body, res: res}
	}
	n := shardOf(id)
	keys := []string{s.k.rec(id), s.k.due(n), s.k.rem(n), s.k.lease(n), s.k.outbox(n), s.k.unlogged(n)}
	now := time.Now()
	ifProgress := ""
	if r.IfProgress != nil {
		ifProgress = strconv.Itoa(*r.IfProgress)
	}
	ifRev := ""
	if r.IfRev != nil {
		ifRev = strconv.FormatInt(*r.IfRev, 10)
	}
	horizon := s.eventsBefore(now)
	args := []any{body, string(r.Status), usec(r.ResolvedAt),
		(s.cfg.Retention + grace).Milliseconds(), nsec(r.ResolvedAt), id,
		horizon, ifProgress, ifRev, usec(now), s.bodies.version(id)}
	if !s.cluster {
		keys = append(keys, s.k.evSeq(), s.k.evIDs())
		// The event's time is the stored one (ns, UTC), as Events and
		// an event logged by the repair read it.
		at, _ := time.Unix(0, nsec(r.ResolvedAt)).UTC().MarshalText()
		args = append(args, string(at), s.k.feed(), horizon, s.k.evAgentPrefix(), s.k.evPendingPrefix())
	} else {
		args = append(args, "", "", "", "", "")
	}
	v, q, err := s.resolveAudited(ctx, id, r, keys, args, sent, now)
	if err != nil {
		return nil, err
	}
	if !logged(v) {
		ev := pendingEvent{id: id, agent: q.Agent, session: q.SessionID, status: q.Status, at: q.ResolvedAt}
		if err := s.logEvent(ctx, ev); err != nil {
			// The resolution stands; Due logs the event later (see repair).
			s.log.Warn("resolution event not logged yet", "question_id", id, "err", err)
		}
	}
	s.feed.broadcast(broker.Resolved{ID: id, Agent: q.Agent, Callback: q.CallbackURL != ""})
	return q, nil
}

// logged tells whether a reply of resolveScript carries the seq of the
// event it logged.
func logged(v any) bool {
	arr, ok := v.([]any)
	return ok && len(arr) >= 3
}

// mutationResult turns the {code, record} reply of a mutating script into
// the question or the error its code means.
func (s *Store) mutationResult(ctx context.Context, op, id string, v any) (*broker.Question, error) {
	return s.mutationResultWith(ctx, op, id, v, nil)
}

// mutationResultWith is mutationResult for a reply whose record may hold
// sent, a resolution this call wrote.
func (s *Store) mutationResultWith(ctx context.Context, op, id string, v any, sent *sentResolution) (*broker.Question, error) {
	code, rec, err := scriptReply(v)
	if err != nil {
		return nil, fmt.Errorf("redis store: %s %s: %w", op, id, err)
	}
	if code == "nf" {
		return nil, fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
	}
	if rec != nil && !s.bodies.fill(id, rec) {
		// Answered without the body the cache has just dropped.
		body, err := s.c.Get(ctx, s.k.body(id)).Result()
		if err != nil && !errors.Is(err, goredis.Nil) {
			return nil, wrap(op, err)
		}
		rec["j"] = body
	}
	q, err := rec.questionWith(s.bodies.base(id, rec), sent)
	if err != nil {
		return nil, fmt.Errorf("redis store: %s %s: %w", op, id, err)
	}
	switch code {
	case "ok":
		return q, nil
	case "closed":
		return nil, &broker.ClosedError{Question: q}
	case "conflict":
		return nil, fmt.Errorf("redis store: %s %s: prompt already answered: %w", op, id, broker.ErrConflict)
	case "stale":
		return nil, fmt.Errorf("redis store: %s %s: the question changed since the resolution was built (%d prompts answered, policy revision %d): %w", op, id, q.ProgressCount(), q.State.Rev, broker.ErrConflict)
	case "range":
		return nil, fmt.Errorf("redis store: %s %s: %w", op, id, &broker.FieldError{Field: "prompt", Message: fmt.Sprintf("the question has %d prompt(s)", len(q.Prompts))})
	case "tail":
		return q, errAuditTail
	}
	return nil, fmt.Errorf("redis store: %s %s: unexpected reply %q", op, id, code)
}

// SaveProgress records the answer to prompt i; the first answer wins.
func (s *Store) SaveProgress(ctx context.Context, id string, i int, a broker.Answer) (*broker.Question, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("redis store: save progress: encode: %w", err)
	}
	return s.setPrompt(ctx, "save progress", id, "p", i, string(body), true)
}

// SetSelection replaces the toggled options of prompt i.
func (s *Store) SetSelection(ctx context.Context, id string, i int, options []int) (*broker.Question, error) {
	if options == nil {
		options = []int{}
	}
	body, err := json.Marshal(options)
	if err != nil {
		return nil, fmt.Errorf("redis store: set selection: encode: %w", err)
	}
	return s.setPrompt(ctx, "set selection", id, "s", i, string(body), false)
}

func (s *Store) setPrompt(ctx context.Context, op, id, field string, i int, value string, firstWins bool) (*broker.Question, error) {
	if !validID(id) {
		return nil, fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	if i < 0 {
		return nil, fmt.Errorf("redis store: %s %s: %w", op, id, &broker.FieldError{Field: "prompt", Message: fmt.Sprintf("index %d is negative", i)})
	}
	fw := "0"
	if firstWins {
		fw = "1"
	}
	v, err := progressScript.Run(ctx, s.run, []string{s.k.rec(id)}, field+strconv.Itoa(i), value, i, fw).Result()
	if err != nil {
		return nil, wrap(op, err)
	}
	return s.mutationResult(ctx, op, id, v)
}

// ClaimReminder marks reminder n as sent if no more than n-1 were.
func (s *Store) ClaimReminder(ctx context.Context, id string, n int) (bool, error) {
	if !validID(id) {
		return false, fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	if n < 1 {
		return false, fmt.Errorf("redis store: claim reminder %s: %w", id, &broker.FieldError{Field: "reminder", Message: fmt.Sprintf("number %d is not 1 or more", n)})
	}
	r, err := claimReminderScript.Run(ctx, s.run, []string{s.k.rec(id), s.k.rem(shardOf(id))}, n, id).Int()
	if err != nil {
		return false, wrap("claim reminder", err)
	}
	if r < 0 {
		return false, fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
	}
	return r == 1, nil
}

// RenewLease moves the lease of a pending question to until.
func (s *Store) RenewLease(ctx context.Context, id string, until time.Time) error {
	if !validID(id) {
		return fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	v, err := renewLeaseScript.Run(ctx, s.run, []string{s.k.rec(id), s.k.lease(shardOf(id))}, nsec(until), usec(until), id).Result()
	if err != nil {
		return wrap("renew lease", err)
	}
	code, rec, err := scriptReply(v)
	if err != nil {
		return fmt.Errorf("redis store: renew lease %s: %w", id, err)
	}
	switch code {
	case "ok":
		return nil
	case "nf":
		return fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
	}
	q, err := rec.question()
	if err != nil {
		return fmt.Errorf("redis store: renew lease %s: %w", id, err)
	}
	return &broker.ClosedError{Question: q}
}

// pendingEvent is a resolution whose event is to be logged.
type pendingEvent struct {
	id, agent, session string
	status             broker.Status
	at                 time.Time
}

// logEvent appends the event of a resolution once (again calls return the
// sequence number of the first), drops the question from its agent's
// pending set and publishes it on the feed.
func (s *Store) logEvent(ctx context.Context, e pendingEvent) error {
	keys, args := s.eventCall(e)
	if err := logEventScript.Run(ctx, s.run, keys, args...).Err(); err != nil {
		return wrap("log event", err)
	}
	return nil
}

// eventCall returns the keys and arguments of logEventScript for e.
func (s *Store) eventCall(e pendingEvent) ([]string, []any) {
	body, _ := json.Marshal(broker.Event{QuestionID: e.id, Agent: e.agent, SessionID: e.session, Status: e.status, At: e.at})
	member := strconv.FormatInt(usec(e.at), 10) + " " + string(body)
	keys := []string{s.k.evSeq(), s.k.evIDs(), s.k.evAgent(e.agent), s.k.evPending(e.agent)}
	return keys, []any{e.id, e.agent, member, s.k.feed(), s.eventsBefore(time.Now())}
}
