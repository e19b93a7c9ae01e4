package redis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Sessions = (*Store)(nil)

// webSession is the key of a web inbox session: one string per session,
// holding its expiry (unix ms), with a TTL that removes it then. It is
// read and written alone, so it may hash anywhere.
func (k *keys) webSession(digest string) string { return k.prefix + "ws:" + digest }

// CreateSession stores a web inbox session under its digest until
// expires. An expiry already past stores nothing.
func (s *Store) CreateSession(ctx context.Context, digest string, expires time.Time) error {
	if digest == "" {
		return fmt.Errorf("redis store: create session: %w: empty digest", broker.ErrInvalid)
	}
	ttl := time.Until(expires)
	if ttl <= 0 {
		return nil
	}
	err := s.c.Set(ctx, s.k.webSession(digest), strconv.FormatInt(expires.UnixMilli(), 10), ttl).Err()
	return wrap("create session", err)
}

// CheckSession reports whether a session is stored under digest and has
// not expired at now.
func (s *Store) CheckSession(ctx context.Context, digest string, now time.Time) (bool, error) {
	v, err := s.c.Get(ctx, s.k.webSession(digest)).Result()
	if errors.Is(err, goredis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, wrap("check session", err)
	}
	expires, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return false, nil // not a session this program wrote
	}
	return now.UnixMilli() < expires, nil
}

// DeleteSession removes the session stored under digest, if any.
func (s *Store) DeleteSession(ctx context.Context, digest string) error {
	return wrap("delete session", s.c.Del(ctx, s.k.webSession(digest)).Err())
}
