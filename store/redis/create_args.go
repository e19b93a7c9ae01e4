package redis

// The keys, arguments and times to live of a new question, for the create
// scripts (create_scripts.go).

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// recordTTL is how long the keys of q may be needed: until its deadline,
// then the retention.
func (s *Store) recordTTL(q *broker.Question) time.Duration {
	life := maxLifetime
	if !q.ExpiresAt.IsZero() {
		life = max(time.Until(q.ExpiresAt), 0)
	}
	return life + s.cfg.Retention + grace
}

// bodySlack is how much longer than its record's TTL at Create a body's
// TTL is. A question resolved by its deadline keeps its record for the
// retention (and its grace) after that, within the body's TTL, so Resolve
// leaves the body's TTL as it is; a question resolved later than the
// slack after its deadline (every instance was down that long) gives its
// body the record's TTL again, as do questions whose deadline moved
// (amendScript) and records written by older versions (no bx field). The
// slack is the longest a question may stay pending, whatever the
// retention. Purge deletes a body with its record.
const bodySlack = maxLifetime

// indexTTL is the life every index key of a shard gets when it is
// written: that of the longest-lived record it may index, plus the window
// in which this process does not renew it again (ttlmemo.go).
func (s *Store) indexTTL() time.Duration {
	return maxLifetime + s.cfg.Retention + grace + renewWindow
}

// trimBefore is the creation time before which index entries can only
// belong to expired records.
func (s *Store) trimBefore(now time.Time) int64 {
	return usec(now.Add(-(maxLifetime + s.cfg.Retention + grace)))
}

// fixedArgs is how many arguments of createScript come before the
// field/value pairs.
const fixedArgs = 21

// createKeys are keys of a new question beside its KEYS: the chat
// indexes of its copies at in-process targets that name a chat, which
// the create scripts record with it (they go last among the script's
// KEYS), and the index keys whose TTL the script renews, which the memo
// marks as renewed at the time in at once the script has written them
// (ttlmemo.go).
type createKeys struct {
	chats, renewed []string
	at             time.Time
	// audit is the end of the question's audit trail once created.
	audit auditTail
}

// createArgs returns the KEYS and ARGV of createScript for q (see
// createWrite): fixedArgs arguments, then field/value pairs; and its
// createKeys. q must be the store's own: the cachedBody's decoded body
// shares its memory.
// The arguments in idem (createIdemScript's) come right after the fixed
// ones; ARGV is made in one allocation.
func (s *Store) createArgs(q *broker.Question, inProcess []broker.Target, idemKey string, max int, idem ...any) ([]string, []any, cachedBody, createKeys, error) {
	// The body's version (bodies.go) comes first among the pairs.
	// Progress and selections live in their own fields, so that the
	// scripts that change them see them; the JSON holds the rest.
	bv := newBodyVersion()
	extra := make([]any, 0, 16)
	extra = append(extra, "bv", bv)
	for i, a := range q.Progress {
		if a != nil {
			b, err := json.Marshal(a)
			if err != nil {
				return nil, nil, cachedBody{}, createKeys{}, fmt.Errorf("redis store: create: encode: %w", err)
			}
			extra = append(extra, "p"+strconv.Itoa(i), string(b))
		}
	}
	for i, sel := range q.Selections {
		if sel == nil {
			sel = []int{}
		}
		b, _ := json.Marshal(sel)
		extra = append(extra, "s"+strconv.Itoa(i), string(b))
	}
	extra = append(extra, postTaskFields(q, inProcess)...)
	audit, tail, err := s.createdAudit(q, inProcess)
	if err != nil {
		return nil, nil, cachedBody{}, createKeys{}, fmt.Errorf("redis store: create: %w", err)
	}
	extra = append(extra, auditPair, audit)
	n := shardOf(q.ID)
	ck := createKeys{at: time.Now(), audit: tail}
	recordTTL := s.recordTTL(q)
	bodyTTL := recordTTL + bodySlack
	extra = append(extra, "bx", strconv.FormatInt(usec(ck.at.Add(bodyTTL)), 10))
	copies := 0
	for _, t := range q.Targets {
		if !slices.Contains(inProcess, t) {
			continue
		}
		ref := broker.MessageRef{Channel: t.Channel, Chat: t.Chat, MessageID: q.ID, PostedAt: q.CreatedAt}
		if t.Chat != "" {
			// A copy without a chat has no chat index (createWrite).
			ck.chats = append(ck.chats, s.k.chat(n, t.Channel, t.Chat))
		}
		copies++
		extra = append(extra, "m"+strconv.Itoa(copies), messageLine(ref))
	}
	if copies > 0 {
		extra = append(extra, "mn", copies)
	}
	// The body keeps what never changes and is not in a field.
	bare := *q
	bare.Progress, bare.Selections = nil, nil
	bare.Agent, bare.SessionID, bare.Status, bare.CreatedAt = "", "", "", time.Time{}
	bare.Reminders, bare.RemindersSent, bare.LeaseUntil = nil, 0, time.Time{}
	raw, err := json.Marshal(&bare)
	if err != nil {
		return nil, nil, cachedBody{}, createKeys{}, fmt.Errorf("redis store: create: encode: %w", err)
	}
	body := string(raw)
	cb := cachedBody{version: bv, body: body}
	if decodesToItself(&bare, raw) {
		// The body as a question for the reads that follow, without
		// decoding it (TestCreateKeepsItsBodyAsDecoded). It shares q's
		// slices and maps: q is the store's own copy (CreateCapped).
		cb.q = &bare
	}
	var expires, next, leaseNs, leaseUs string
	if !q.ExpiresAt.IsZero() {
		expires = strconv.FormatInt(usec(q.ExpiresAt), 10)
	}
	rts := make([]string, len(q.Reminders))
	for i, t := range q.Reminders {
		rts[i] = strconv.FormatInt(usec(t), 10)
	}
	if t := q.NextReminder(); !t.IsZero() {
		next = strconv.FormatInt(usec(t), 10)
	}
	if !q.LeaseUntil.IsZero() {
		leaseNs, leaseUs = strconv.FormatInt(nsec(q.LeaseUntil), 10), strconv.FormatInt(usec(q.LeaseUntil), 10)
	}
	// Room for what the callers add: the reservation and pending set,
	// then the chat indexes.
	keys := make([]string, 0, 10+len(ck.chats))
	keys = append(keys, s.k.rec(q.ID), s.k.body(q.ID), s.k.due(n), s.k.timers(n), s.k.lease(n), s.k.all(n),
		s.k.agent(n, q.Agent), s.k.session(n, q.Agent, q.SessionID))
	// The renewable indexes in the script's order: agent, session (none
	// without one), the chat indexes.
	session := ""
	if q.SessionID != "" {
		session = keys[7]
	}
	renew, renewed := s.ttls.plan(ck.at, append([]string{keys[6], session}, ck.chats...))
	ck.renewed = renewed
	args := make([]any, 0, fixedArgs+len(idem)+len(extra))
	args = append(args,
		q.ID, body, q.Agent, q.SessionID, usec(q.CreatedAt), expires,
		strings.Join(rts, ","), next, leaseNs, leaseUs, idemKey, q.CallbackURL,
		len(q.Prompts), recordTTL.Milliseconds(), s.trimBefore(ck.at), q.RemindersSent,
		max, usec(pendingEnd(q)), usec(ck.at), strconv.FormatInt(s.indexTTL().Milliseconds(), 10)+"/"+renew,
		bodyTTL.Milliseconds())
	args = append(append(args, idem...), extra...)
	return keys, args, cb, ck, nil
}

// decodesToItself reports whether a copy of body q is what decoding raw,
// its JSON, gives: true of a new question as the broker makes it, whose
// only time in the body, its deadline, is in UTC (a time in UTC carries
// no monotonic reading), and whose text json.Marshal did not mend
// (broker.MendedJSON). A time in another zone
// decodes to the same instant in another form, so the body of such a
// question, and of one that arrives with answers or policy state, is
// decoded on first use.
func decodesToItself(q *broker.Question, raw []byte) bool {
	canonical := func(t time.Time) bool {
		return t.IsZero() || t.Location() == time.UTC
	}
	s := q.State
	return canonical(q.ExpiresAt) && q.ResolvedAt.IsZero() && q.Answers == nil && q.AnsweredBy == nil &&
		len(s.Votes) == 0 && len(s.Snoozes) == 0 && len(s.Escalations) == 0 && s.EscalateAt.IsZero() &&
		!broker.MendedJSON(raw)
}
