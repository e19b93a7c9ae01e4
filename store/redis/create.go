package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// staleReservation is how old an idempotency reservation must be, with no
// question stored under it, before another Create may take it over. On
// Cluster the Create that made it has died (or Redis restarted) between
// its two steps, which are one round trip apart; elsewhere both steps are
// one script, and such a reservation is left by a Create of the two-step
// kind (an older version sharing the server) or outlived its question. It
// is short so that an agent retrying after a Redis restart is not held for
// long.
const staleReservation = 5 * time.Second

// reserveScript maps an idempotency key to an id unless it maps already.
// KEYS: idem. ARGV: 1 id, 2 nowMs, 3 ttlMs, 4 "1" to take the key over
// when it still names ARGV[5].
// Returns {'ok'} or {'have', id, reservedMs}.
var reserveScript = newScript(`
local v = redis.call('GET', KEYS[1])
if v then
  local old, t = string.match(v, '^([^:]*):(%d+)$')
  old = old or ''
  if ARGV[4] ~= '1' or old ~= ARGV[5] then return {'have', old, t or '0'} end
end
redis.call('SET', KEYS[1], ARGV[1] .. ':' .. ARGV[2], 'PX', ARGV[3])
return {'ok'}
`)

// releaseScript deletes a reservation that still names ARGV[1].
var releaseScript = newIdempotentScript(`
local v = redis.call('GET', KEYS[1])
if v and string.match(v, '^([^:]*):') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`)

// Create stores q as pending, with its copies at inProcess; see
// CreateCapped.
func (s *Store) Create(ctx context.Context, q *broker.Question, inProcess []broker.Target) (*broker.Question, bool, error) {
	return s.CreateCapped(ctx, q, inProcess, 0)
}

// CreateCapped stores q as pending, unless its agent has max pending
// questions already (max <= 0: no cap). With a ToolCallID, a second
// Create with the same key returns the first question. Off Cluster the
// key is reserved, the question counted in its agent's pending set and
// the record written by one script; on Cluster the key and the set live
// in other slots, so the key is reserved first, then the question is
// counted, then the record is written. The copies at inProcess are
// written with the record, in its script.
func (s *Store) CreateCapped(ctx context.Context, q *broker.Question, inProcess []broker.Target, max int) (*broker.Question, bool, error) {
	if q == nil || !validID(q.ID) {
		return nil, false, fmt.Errorf("redis store: create: %w", &broker.FieldError{Field: "id", Message: "not a question id"})
	}
	if err := broker.CheckInProcess(q, inProcess); err != nil {
		return nil, false, fmt.Errorf("redis store: create %s: %w", q.ID, err)
	}
	// st is the store's own copy: the body it keeps decoded (bodies.go)
	// shares its memory, so it is never handed out. A new question is
	// returned as q itself, with the status and creation time it was
	// stored with.
	st := q.Clone()
	st.Status = broker.StatusPending
	if st.CreatedAt.IsZero() {
		st.CreatedAt = time.Now().UTC()
	}
	stored := func() *broker.Question {
		q.Status, q.CreatedAt = st.Status, st.CreatedAt
		return q
	}
	if max < 0 {
		max = 0 // no cap, as the scripts spell it
	}
	if st.ToolCallID == "" {
		if err := s.create(ctx, st, inProcess, "", max); err != nil {
			return nil, false, err
		}
		return stored(), true, nil
	}
	key := s.k.idem(st.Agent, st.SessionID, st.ToolCallID)
	takeover, from := "0", ""
	for attempt := 0; ; attempt++ {
		if attempt >= 40 {
			return nil, false, fmt.Errorf("redis store: create: a question with this tool_call_id is being created: %w", broker.ErrUnavailable)
		}
		now := time.Now()
		h, err := s.claim(ctx, st, inProcess, key, now, takeover, from, max)
		if err != nil {
			return nil, false, err
		}
		if h.stored {
			return stored(), true, nil
		}
		if h.id == "" {
			// A malformed reservation: take it over.
			takeover, from = "1", ""
			continue
		}
		got, err := s.Get(ctx, h.id)
		if err == nil {
			return got, false, nil
		}
		if !errors.Is(err, broker.ErrNotFound) {
			return nil, false, err
		}
		// The reservation names a question that is not stored: it
		// expired, or its Create is still between its steps, or died.
		if now.Sub(time.UnixMilli(h.ms)) > staleReservation || h.id == st.ID {
			takeover, from = "1", h.id
			continue
		}
		select {
		case <-ctx.Done():
			return nil, false, wrap("create", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// holder is the outcome of claim: st was stored, or the idempotency key
// names question id, reserved at ms (Unix milliseconds).
type holder struct {
	stored bool
	id     string
	ms     int64
}

// claim reserves the idempotency key for st (taking it over from the id
// in from when takeover is "1") and stores st, with its copies at
// inProcess. It fails with broker.ErrIDTaken when the id is in use, and
// with a *broker.LimitError when the agent has max pending questions,
// leaving the key unclaimed.
func (s *Store) claim(ctx context.Context, st *broker.Question, inProcess []broker.Target, key string, now time.Time, takeover, from string, max int) (holder, error) {
	var v []any
	var err error
	if s.cluster {
		v, err = reserveScript.Run(ctx, s.run, []string{key}, st.ID, now.UnixMilli(), s.recordTTL(st).Milliseconds(), takeover, from).Slice()
		if err != nil {
			return holder{}, wrap("create", err)
		}
		if len(v) == 1 {
			if err := s.create(ctx, st, inProcess, key, max); err != nil {
				if errors.Is(err, broker.ErrIDTaken) || errors.Is(err, broker.ErrLimit) {
					_ = releaseScript.Run(ctx, s.run, []string{key}, st.ID).Err()
				}
				return holder{}, err
			}
			return holder{stored: true}, nil
		}
	} else {
		keys, args, cb, ck, err := s.createArgs(st, inProcess, key, max, now.UnixMilli(), takeover, from)
		if err != nil {
			return holder{}, err
		}
		keys = append(keys, key, s.k.evPending(st.Agent))
		v, err = createIdemScript.Run(ctx, s.run, append(keys, ck.chats...), args...).Slice()
		if err != nil {
			return holder{}, wrap("create", err)
		}
		switch v[0] {
		case "ok":
			s.bodies.put(st.ID, cb)
			s.ttls.marked(ck.renewed, ck.at)
			s.trails.setTail(st.ID, ck.audit)
			return holder{stored: true}, nil
		case "taken":
			return holder{}, fmt.Errorf("redis store: create %s: %w", st.ID, broker.ErrIDTaken)
		case "full":
			return holder{}, fmt.Errorf("redis store: create: %w", pendingLimit(max))
		}
	}
	if len(v) < 3 {
		return holder{}, fmt.Errorf("redis store: create: unexpected reply %v", v)
	}
	id, _ := v[1].(string)
	ms, _ := strconv.ParseInt(fmt.Sprint(v[2]), 10, 64)
	return holder{id: id, ms: ms}, nil
}

// create counts q among its agent's pending questions, unless they are at
// max, and writes its record with its copies at inProcess: one script off
// Cluster; on Cluster, where
// the pending set is in another slot, two, and the count is taken back
// when the id proves taken. (When the second step fails otherwise, the
// entry stays until the question's deadline plus an hour: a question that
// may exist is counted rather than not.)
func (s *Store) create(ctx context.Context, q *broker.Question, inProcess []broker.Target, idemKey string, max int) error {
	keys, args, cb, ck, err := s.createArgs(q, inProcess, idemKey, max)
	if err != nil {
		return err
	}
	pending := s.k.evPending(q.Agent)
	added := int64(0)
	if s.cluster {
		added, err = admitScript.Run(ctx, s.run, []string{pending}, q.ID, args[16], args[17], args[18]).Int64()
		if err != nil {
			return wrap("create", err)
		}
		if added == 0 {
			return fmt.Errorf("redis store: create: %w", pendingLimit(max))
		}
	} else {
		keys = append(keys, pending)
	}
	ok, err := createScript.Run(ctx, s.run, append(keys, ck.chats...), args...).Int()
	if err != nil {
		return wrap("create", err)
	}
	switch ok {
	case 0:
		if added == 1 {
			_ = s.c.ZRem(context.WithoutCancel(ctx), pending, q.ID).Err()
		}
		return fmt.Errorf("redis store: create %s: %w", q.ID, broker.ErrIDTaken)
	case -1:
		return fmt.Errorf("redis store: create: %w", pendingLimit(max))
	}
	s.bodies.put(q.ID, cb)
	s.ttls.marked(ck.renewed, ck.at)
	s.trails.setTail(q.ID, ck.audit)
	return nil
}

// pendingLimit is the error of a Create refused by the cap.
func pendingLimit(max int) error {
	return &broker.LimitError{What: "pending questions", Limit: max}
}

// pendingEnd is when q's entry in its agent's pending set lapses: an hour
// after its deadline, by when the sweeper has resolved it (and dropped the
// entry) unless every instance was down.
func pendingEnd(q *broker.Question) time.Time {
	if q.ExpiresAt.IsZero() {
		return q.CreatedAt.Add(maxLifetime)
	}
	return q.ExpiresAt.Add(grace)
}

// Get returns the question, or broker.ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (*broker.Question, error) {
	rec, err := s.record(ctx, id)
	if err != nil {
		return nil, err
	}
	return s.question(id, rec)
}

// question assembles question id from its record, from the decoded body
// the store keeps when it has it.
func (s *Store) question(id string, r record) (*broker.Question, error) {
	return r.questionWith(s.bodies.base(id, r), nil)
}

func (s *Store) record(ctx context.Context, id string) (record, error) {
	if !validID(id) {
		return nil, fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	if s.bodies.version(id) != "" {
		// The body is kept: read the record alone, and the body only if
		// the record proves to be another question's.
		m, err := s.c.HGetAll(ctx, s.k.rec(id)).Result()
		if err != nil {
			return nil, wrap("get", err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
		}
		if r := record(m); s.bodies.fill(id, r) {
			return r, nil
		}
	}
	pipe := s.c.Pipeline()
	hash := pipe.HGetAll(ctx, s.k.rec(id))
	body := pipe.Get(ctx, s.k.body(id))
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
		return nil, wrap("get", err)
	}
	m := hash.Val()
	if len(m) == 0 || body.Val() == "" {
		return nil, fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
	}
	m["j"] = body.Val()
	s.bodies.fill(id, record(m))
	return record(m), nil
}

// validID accepts any id the record layout can hold; the broker draws
// them with broker.NewID.
func validID(id string) bool {
	return id != "" && len(id) <= 128 && !strings.ContainsAny(id, ":{}\t\n\x00")
}
