package broker

import (
	"context"
	"fmt"
	"time"
)

// ReplayGuard remembers, for a while, the keys of requests already taken,
// so that a signed request sent a second time within its signature's
// window (a replay, or a platform's redelivery) is dropped, whichever
// bridge instance receives the copy. It is the webhooks' role of the
// Store; the Slack channel keys it by a digest of each signed request and
// by Events API event id.
//
// All methods are safe for concurrent use and return ErrUnavailable
// (wrapped) when the store cannot be reached.
type ReplayGuard interface {
	// FirstSeen records key for ttl and reports whether it was new: true
	// for exactly one of any number of calls with one key, on any
	// instance, until ttl has passed since that call; then the key is new
	// again. A bad key or ttl (CheckReplayKey) gives an ErrInvalid error
	// and records nothing.
	FirstSeen(ctx context.Context, key string, ttl time.Duration) (bool, error)
}

// MaxReplayKey bounds the length of a ReplayGuard key: callers pass a
// digest or a platform's id, not the request.
const MaxReplayKey = 256

// MaxReplayTTL bounds how long a ReplayGuard remembers a key.
const MaxReplayTTL = 24 * time.Hour

// CheckReplayKey checks a FirstSeen call's arguments, the same way for
// every store: a key of 1 to MaxReplayKey bytes and a ttl from 1 ms to
// MaxReplayTTL.
func CheckReplayKey(key string, ttl time.Duration) error {
	switch {
	case key == "":
		return fmt.Errorf("%w: replay key: empty", ErrInvalid)
	case len(key) > MaxReplayKey:
		return fmt.Errorf("%w: replay key: %d bytes, at most %d (pass a digest)", ErrInvalid, len(key), MaxReplayKey)
	case ttl < time.Millisecond || ttl > MaxReplayTTL:
		return fmt.Errorf("%w: replay ttl: %s is outside 1ms–%s", ErrInvalid, ttl, MaxReplayTTL)
	}
	return nil
}
