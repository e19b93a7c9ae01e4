package client

import (
	"context"
	"fmt"
	"net/http/httptrace"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/internal/backoff"
)

// RetryInfo describes one retry of a blocking call (AskRaw, Ask,
// AskAsync, Wait, Events) after a transient failure; Client.OnRetry
// receives it before the pause.
type RetryInfo struct {
	// Server is the base URL the call talks to.
	Server string
	// Err is the failure: a lost or refused connection, or a server
	// that is restarting or overloaded.
	Err error
	// Attempt counts the failures since the server last answered this
	// call: 1 is the start of an outage.
	Attempt int
	// Reached is true when the server had accepted a connection of this
	// call before the failure: the call is re-attaching, and
	// ConnectTimeout no longer applies.
	Reached bool
	// Delay is the pause before the next try.
	Delay time.Duration
}

// UnreachableError is a blocking call that gave up because the server
// did not answer within Client.ConnectTimeout.
type UnreachableError struct {
	// Server is the base URL the call talked to.
	Server string
	// After is how long the call kept trying: the ConnectTimeout it was
	// given (its last attempt may end a little later on a busy machine).
	After time.Duration
	// Err is the last failure.
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("askbridge: cannot reach %s after %s: %v", e.Server, e.After.Round(time.Millisecond), e.Err)
}

// Unwrap returns the last failure.
func (e *UnreachableError) Unwrap() error { return e.Err }

// retrier paces the retries of one blocking call: its pauses follow
// internal/backoff from Client.RetryDelay up to maxRetryDelay, it tells Client.OnRetry, and gives up after ConnectTimeout while
// the server has not accepted a connection of the call yet. The server
// counts as reached once it accepts a connection, not once it answers: a
// long-poll cut by a crash re-attaches, whatever ConnectTimeout.
type retrier struct {
	c       *Client
	pauses  *backoff.Backoff
	conn    atomic.Bool // set when the transport got a connection
	reached bool
	attempt int
	since   time.Time
}

// maxRetryDelay caps the pause between two tries of a blocking call.
const maxRetryDelay = 5 * time.Second

func (c *Client) newRetrier() *retrier {
	return &retrier{c: c, pauses: backoff.New(c.RetryDelay, maxRetryDelay)}
}

// trace returns ctx with a hook that notes each connection the call's
// requests get.
func (r *retrier) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) { r.conn.Store(true) },
	})
}

// ok records an answer from the server: the next failure starts a new
// outage, with the shortest pause.
func (r *retrier) ok() {
	r.reached, r.attempt = true, 0
	r.pauses.Reset()
}

// pause returns nil after waiting out the pause when err is worth another
// try, and otherwise the error to give up with: err itself (not
// transient, or ctx ended) or an *UnreachableError.
func (r *retrier) pause(ctx context.Context, err error) error {
	if !Transient(err) || ctx.Err() != nil {
		return err
	}
	if r.conn.Load() {
		r.reached = true
	}
	now := time.Now()
	if r.attempt == 0 {
		r.since = now
	}
	r.attempt++
	d := r.pauses.Next()
	if !r.reached && r.c.ConnectTimeout > 0 {
		left := r.c.ConnectTimeout - now.Sub(r.since)
		if left <= 0 {
			return &UnreachableError{Server: r.c.base, After: r.c.ConnectTimeout, Err: err}
		}
		d = min(d, left)
	}
	if r.c.OnRetry != nil {
		r.c.OnRetry(RetryInfo{Server: r.c.base, Err: err, Attempt: r.attempt, Reached: r.reached, Delay: d})
	}
	return backoff.Sleep(ctx, d)
}
