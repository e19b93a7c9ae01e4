package redis

import (
	"context"
	"fmt"
	"time"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.ReplayGuard = (*Store)(nil)

// replay is the key of a replay guard's key: a string with a TTL that
// removes it when it is forgotten. It is read and written alone, so it
// may hash anywhere.
func (k *keys) replay(key string) string { return k.prefix + "rp:" + key }

// FirstSeen records key for ttl and reports whether it was new, with one
// SET NX PX: of concurrent calls on any instance, one alone sets it.
func (s *Store) FirstSeen(ctx context.Context, key string, ttl time.Duration) (bool, error) {
	if err := broker.CheckReplayKey(key, ttl); err != nil {
		return false, fmt.Errorf("redis store: first seen: %w", err)
	}
	first, err := s.c.SetNX(ctx, s.k.replay(key), "1", ttl).Result()
	if err != nil {
		return false, wrap("first seen", err)
	}
	return first, nil
}
