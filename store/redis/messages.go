package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

// AddMessage remembers a posted copy: the record, its audit entry and
// the chat indexes of the question's shard in one script, and the lookup
// key by platform message in the same pipeline (it lives in another
// slot).
func (s *Store) AddMessage(ctx context.Context, id string, m broker.MessageRef) error {
	if !validID(id) {
		return fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	if m.Channel == "" {
		return fmt.Errorf("redis store: add message: %w", &broker.FieldError{Field: "channel", Message: "is empty"})
	}
	for field, v := range map[string]string{"channel": m.Channel, "chat": m.Chat, "message_id": m.MessageID} {
		if strings.ContainsAny(v, "\t\n\x00") {
			return fmt.Errorf("redis store: add message: %w", &broker.FieldError{Field: field, Message: "contains a tab, newline or NUL"})
		}
	}
	line := messageLine(m)
	n := shardOf(id)
	now := time.Now()
	ttl := s.indexTTL()
	keys := []string{s.k.rec(id)}
	if m.Chat != "" {
		// A copy without a chat has no chat index (createWrite).
		keys = append(keys, s.k.chat(n, m.Channel, m.Chat))
	}
	indexTTL := ttl.Milliseconds()
	_, renewed := s.ttls.plan(now, keys[1:])
	if len(renewed) == 0 {
		indexTTL = 0
	}
	// The copy's audit entry is sealed after the trail's end this store
	// knows, and again after the end the script answers when another
	// append came first (audit.go).
	t, known := s.trails.tail(id)
	for range auditAttempts {
		packed, next, err := s.sealAfter(id, t, []broker.AuditEntry{broker.PostedAudit(id, t.agent, m)}, now)
		if err != nil {
			return fmt.Errorf("redis store: add message %s: %w", id, err)
		}
		b := s.batch()
		add := b.script(ctx, addMessageScript, keys, line, id, indexTTL, s.trimBefore(now), expectArg(t, known), packed)
		var lookup string
		if m.MessageID != "" {
			lookup = s.k.lookup(m.Channel, m.Chat, m.MessageID)
			b.pipe.Set(ctx, lookup, id, ttl)
		}
		if err := b.exec(ctx); err != nil {
			return wrap("add message", err)
		}
		if moved, ok := tailReply(add.Val()); ok {
			moved.q = t.q
			t, known = moved, true
			continue
		}
		if found, _ := add.Int(); found == 0 {
			if lookup != "" {
				_ = s.c.Del(ctx, lookup).Err()
			}
			return fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
		}
		s.trails.setTail(id, next)
		s.ttls.marked(renewed, now)
		return nil
	}
	return fmt.Errorf("redis store: add message %s: the audit trail kept moving: %w", id, broker.ErrUnavailable)
}

// Messages lists the posted copies of a question, oldest first.
func (s *Store) Messages(ctx context.Context, id string) ([]broker.MessageRef, error) {
	if !validID(id) {
		return nil, fmt.Errorf("redis store: question %q: %w", id, broker.ErrNotFound)
	}
	m, err := s.c.HGetAll(ctx, s.k.rec(id)).Result()
	if err != nil {
		return nil, wrap("messages", err)
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("redis store: question %s: %w", id, broker.ErrNotFound)
	}
	return record(m).messages()
}

// LookupMessage finds the question a platform message belongs to. A copy
// at an in-process target has its question's id for message id and no
// lookup key (Create writes none): it is found in that question's record.
func (s *Store) LookupMessage(ctx context.Context, channel, chat, messageID string) (string, error) {
	id, err := s.c.Get(ctx, s.k.lookup(channel, chat, messageID)).Result()
	if errors.Is(err, goredis.Nil) {
		return s.lookupInProcess(ctx, channel, chat, messageID)
	}
	if err != nil {
		return "", wrap("lookup message", err)
	}
	return id, nil
}

// lookupInProcess finds the question whose id is messageID when it has a
// copy in chat of channel with that message id.
func (s *Store) lookupInProcess(ctx context.Context, channel, chat, messageID string) (string, error) {
	notFound := fmt.Errorf("redis store: message %s/%s/%s: %w", channel, chat, messageID, broker.ErrNotFound)
	if !validID(messageID) {
		return "", notFound
	}
	m, err := s.c.HGetAll(ctx, s.k.rec(messageID)).Result()
	if err != nil {
		return "", wrap("lookup message", err)
	}
	refs, err := record(m).messages()
	if err != nil {
		return "", fmt.Errorf("redis store: lookup message: question %s: %w", messageID, err)
	}
	for _, r := range refs {
		if r.Channel == channel && r.Chat == chat && r.MessageID == messageID {
			return messageID, nil
		}
	}
	return "", notFound
}
