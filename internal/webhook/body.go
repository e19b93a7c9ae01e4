// Package webhook reads the bodies of the requests platforms send to the
// bridge's public webhook endpoints (Slack's events and interactions,
// Discord's interactions, Telegram's updates).
//
// Such a body has to be read before its signature can be checked, so
// anyone on the network can make the bridge hold one in memory. ReadBody
// bounds both what and how long: at most a limit the platform's real
// payloads stay well below, refused at once when the declared
// Content-Length is larger, and within ReadTimeout (or the server's own
// ReadTimeout when that is shorter), so that a sender trickling a body
// loses its connection after seconds, not minutes.
package webhook

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// ReadTimeout bounds reading one webhook body. Platforms send theirs in
// one go, well within it.
const ReadTimeout = 10 * time.Second

// ErrTooLarge is returned (wrapped) for a body over the limit.
var ErrTooLarge = errors.New("request body too large")

// ReadBody reads the body of r: at most limit bytes, within ReadTimeout
// from now. A body over limit is an error wrapping ErrTooLarge; a body
// that stalls or breaks off is an error too. Status says which status to
// answer with.
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: %d bytes declared, the limit is %d", ErrTooLarge, r.ContentLength, limit)
	}
	d := ReadTimeout
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 {
		d = min(d, srv.ReadTimeout)
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(d))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, fmt.Errorf("%w: the limit is %d bytes", ErrTooLarge, limit)
	case err != nil:
		return nil, fmt.Errorf("read body: %w", err)
	}
	return body, nil
}

// Status is the HTTP status answering a ReadBody error: 413 for a body
// over the limit, 400 for one that stalled or broke off.
func Status(err error) int {
	if errors.Is(err, ErrTooLarge) {
		return http.StatusRequestEntityTooLarge
	}
	return http.StatusBadRequest
}
