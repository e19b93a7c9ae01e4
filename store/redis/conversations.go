package redis

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Conversations = (*Store)(nil)

// A conversation of a live agent session (broker/conversation.go) lives
// under one hash tag, drawn from its agent and session, so that its
// counter and its messages are in one slot of a cluster and one script
// numbers and stores a message:
//
//	P{c:<digest>}:seq   counter of the conversation's message numbers
//	P{c:<digest>}:log   zset number -> "<number> <message JSON>"
//	P{c:<digest>}:ear   string "<at ms> <until ms>": the session's last
//	                    poll, with a TTL to until
//
// digest is the first 128 bits of sha256(agent NUL session), in hex. The
// log keeps broker.MaxSessionMessages entries; a message's JSON carries
// its expiry, past which it is not returned. The log and the counter
// expire with their newest message, and a poll keeps the counter as long
// as its mark: a conversation idle for longer than both starts its
// numbers again, which the broker allows for. Purge leaves them to their
// TTLs.
func (k *keys) conversation(agent, session string) (seq, log, ear string) {
	sum := sha256.Sum256([]byte(agent + "\x00" + session))
	tag := k.prefix + "{c:" + hex.EncodeToString(sum[:16]) + "}:"
	return tag + "seq", tag + "log", tag + "ear"
}

// addSessionMessageScript numbers a message and stores it. It is not run
// twice on a lost reply (newScript): a second run would store the
// message again under the next number.
//
// KEYS: seq, log. ARGV: the message JSON, its TTL (ms), the entries kept.
var addSessionMessageScript = newScript(`
local seq = redis.call('INCR', KEYS[1])
redis.call('ZADD', KEYS[2], seq, seq .. ' ' .. ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', seq - tonumber(ARGV[3]))
local ttl = tonumber(ARGV[2])
for i = 1, 2 do
	local left = redis.call('PTTL', KEYS[i])
	if left >= 0 and left < ttl or left == -1 then redis.call('PEXPIRE', KEYS[i], ttl) end
end
return seq`)

// markListeningScript writes the session's mark and keeps the counter at
// least as long; running it twice is running it once.
//
// KEYS: ear, seq. ARGV: the mark, its TTL (ms).
var markListeningScript = newIdempotentScript(`
local ttl = tonumber(ARGV[2])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
local left = redis.call('PTTL', KEYS[2])
if left >= 0 and left < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
return 1`)

// AddSessionMessage numbers m and stores it with one script.
func (s *Store) AddSessionMessage(ctx context.Context, m broker.SessionMessage) (int64, error) {
	m.Seq = 0
	data, err := json.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("redis store: add session message: %w", err)
	}
	ttl := max(m.ExpiresAt.Sub(m.At), time.Second)
	seqKey, logKey, _ := s.k.conversation(m.Agent, m.SessionID)
	seq, err := addSessionMessageScript.Run(ctx, s.c, []string{seqKey, logKey}, data, ttl.Milliseconds(), broker.MaxSessionMessages).Int64()
	if err != nil {
		return 0, wrap("add session message", err)
	}
	return seq, nil
}

// SessionMessages reads the log after after, then the counter, in one
// pipeline on the conversation's node: the counter is never below a
// message returned.
func (s *Store) SessionMessages(ctx context.Context, agent, session string, after int64, now time.Time, limit int) ([]broker.SessionMessage, int64, error) {
	if limit <= 0 {
		limit = broker.MaxSessionMessages
	}
	seqKey, logKey, _ := s.k.conversation(agent, session)
	pipe := s.c.Pipeline()
	entries := pipe.ZRangeByScore(ctx, logKey, &goredis.ZRangeBy{Min: "(" + strconv.FormatInt(after, 10), Max: "+inf", Count: int64(limit)})
	counter := pipe.Get(ctx, seqKey)
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
		return nil, 0, wrap("session messages", err)
	}
	var latest int64
	if v, err := counter.Result(); err == nil {
		latest, _ = strconv.ParseInt(v, 10, 64)
	}
	var out []broker.SessionMessage
	for _, e := range entries.Val() {
		num, data, ok := strings.Cut(e, " ")
		seq, err := strconv.ParseInt(num, 10, 64)
		if !ok || err != nil {
			return nil, 0, fmt.Errorf("redis store: session messages: entry %.20q is not a numbered message", e)
		}
		var m broker.SessionMessage
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return nil, 0, fmt.Errorf("redis store: session messages: message %d: %w", seq, err)
		}
		if !now.Before(m.ExpiresAt) {
			continue
		}
		m.Seq = seq
		out = append(out, m)
	}
	return out, latest, nil
}

// MarkListening writes the session's mark.
func (s *Store) MarkListening(ctx context.Context, agent, session string, at, until time.Time) error {
	ttl := until.Sub(at)
	if ttl <= 0 {
		return nil
	}
	seqKey, _, ear := s.k.conversation(agent, session)
	mark := strconv.FormatInt(at.UnixMilli(), 10) + " " + strconv.FormatInt(until.UnixMilli(), 10)
	return wrap("mark listening", markListeningScript.Run(ctx, s.c, []string{ear, seqKey}, mark, ttl.Milliseconds()).Err())
}

// ListenedAt reads the session's mark.
func (s *Store) ListenedAt(ctx context.Context, agent, session string, now time.Time) (time.Time, error) {
	_, _, ear := s.k.conversation(agent, session)
	v, err := s.c.Get(ctx, ear).Result()
	if errors.Is(err, goredis.Nil) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, wrap("listened at", err)
	}
	atText, untilText, _ := strings.Cut(v, " ")
	at, err1 := strconv.ParseInt(atText, 10, 64)
	until, err2 := strconv.ParseInt(untilText, 10, 64)
	if err1 != nil || err2 != nil || now.UnixMilli() >= until {
		return time.Time{}, nil
	}
	return time.UnixMilli(at).UTC(), nil
}
