package broker

import (
	"context"
	"time"
)

// Sessions keeps the sign-in sessions of the web inbox in the store, so
// that a session made on one bridge instance is accepted by every other,
// and signing out ends it everywhere. It is the web inbox's role of the
// Store.
//
// Sessions are known only by a digest: the web inbox gives each browser a
// random session id and passes the store a keyed hash of it, so what the
// store holds cannot sign anyone in. All methods are safe for concurrent
// use and return ErrUnavailable (wrapped) when the store cannot be reached.
type Sessions interface {
	// CreateSession stores a session under digest, valid until expires.
	CreateSession(ctx context.Context, digest string, expires time.Time) error
	// CheckSession reports whether a session is stored under digest and
	// has not expired at now.
	CheckSession(ctx context.Context, digest string, now time.Time) (bool, error)
	// DeleteSession removes the session; removing an unknown or expired
	// one is not an error.
	DeleteSession(ctx context.Context, digest string) error
}
