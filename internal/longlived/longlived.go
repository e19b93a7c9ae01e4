// Package longlived lets the responses that are meant to last (long-polls,
// event streams, MCP tool calls that wait for a person) outlive the HTTP
// server's WriteTimeout, which guards every other response.
//
// net/http sets the write deadline once, when it starts reading a
// request, so a long-poll that answers after WriteTimeout finds its
// connection unusable and the client gets nothing. Handler moves the
// deadline instead: before every write and flush of a wrapped response it
// is set to now plus the server's WriteTimeout. Each write still has to
// finish in that time, so a client that stops reading is dropped, while
// the response as a whole lasts as long as its handler wants: a
// long-poll's wait (at most 10 minutes), an event stream's client.
//
// Over HTTP/2 the server enforces WriteTimeout with a timer per stream
// that resets the stream when it fires, even while its handler has
// written nothing; Handler lifts it for such requests until the first
// write.
//
// A deadline set moments before is left as it is: a write that starts
// within refreshAge of it (a second, or an eighth of WriteTimeout when
// that is shorter) still has nearly all of WriteTimeout, and a response
// written at once, the commonest, moves no deadline at all (moving one is
// a call into the runtime's poller each time).
//
// ReadTimeout needs no such care: it bounds reading the request, and
// net/http clears the read deadline once the body has been read to its
// end, so a waiting handler's context is not cancelled by it.
package longlived

import (
	"net/http"
	"time"
)

// Handler wraps h so that its responses may outlive the server's
// WriteTimeout; see the package comment.
func Handler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lw := &writer{ResponseWriter: w, rc: http.NewResponseController(w), per: writeTimeout(r)}
		if r.ProtoMajor >= 2 {
			// HTTP/2 enforces WriteTimeout with a timer per stream that
			// resets the stream when it fires, written or not: lift it
			// until the first write, as HTTP/1.1's connection deadline
			// is in effect (it only bounds writes).
			_ = lw.rc.SetWriteDeadline(time.Time{})
		} else {
			// net/http set the connection's deadline as it finished
			// reading the request's head, just now.
			lw.set = time.Now()
		}
		// The end of the response (the last chunk, a body-less status) is
		// written after the handler returns: give it its own time.
		defer lw.refresh()
		h.ServeHTTP(lw, r)
	})
}

// writeTimeout is the WriteTimeout of the server serving r (0 when none).
func writeTimeout(r *http.Request) time.Duration {
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok {
		return srv.WriteTimeout
	}
	return 0
}

// writer gives every write and flush the server's WriteTimeout from the
// moment it starts.
type writer struct {
	http.ResponseWriter
	rc  *http.ResponseController
	per time.Duration
	// set is when the deadline in force was set to per from then; zero
	// when none is.
	set time.Time
}

// refreshAge is how old a deadline may be and still be left for a write:
// a second, or an eighth of per when that is shorter.
func refreshAge(per time.Duration) time.Duration { return min(time.Second, per/8) }

// refresh gives what is written next per from now, unless the deadline
// in force was set less than refreshAge ago.
func (w *writer) refresh() {
	if w.per <= 0 {
		return
	}
	now := time.Now()
	if !w.set.IsZero() && now.Sub(w.set) < refreshAge(w.per) {
		return
	}
	w.set = now
	_ = w.rc.SetWriteDeadline(now.Add(w.per))
}

// WriteHeader refreshes the deadline: a body-less response is written
// when the handler returns.
func (w *writer) WriteHeader(code int) {
	w.refresh()
	w.ResponseWriter.WriteHeader(code)
}

// Write refreshes the write deadline and writes p.
func (w *writer) Write(p []byte) (int, error) {
	w.refresh()
	return w.ResponseWriter.Write(p)
}

// FlushError refreshes the write deadline and flushes; http.ResponseController
// and http.Flusher callers both reach it.
func (w *writer) FlushError() error {
	w.refresh()
	return w.rc.Flush()
}

// Flush is FlushError for callers that assert http.Flusher.
func (w *writer) Flush() { _ = w.FlushError() }

// Unwrap returns the underlying ResponseWriter, for http.ResponseController.
func (w *writer) Unwrap() http.ResponseWriter { return w.ResponseWriter }
