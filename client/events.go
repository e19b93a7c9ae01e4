package client

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Event is one resolution, or one snooze of a pending question, from the
// event stream.
type Event struct {
	// ID is the event's position in the stream; resume after it with
	// EventsFilter.LastEventID.
	ID string
	// Type is EventResolved or EventExtended.
	Type string
	// Result is the question: as it ended for a resolution; for an
	// extension, its id, session, pending status and new ExpiresAt.
	Result Result
	// Extension is what an extended event adds (who snoozed, the count);
	// nil for a resolution.
	Extension *Extension
}

// The types of events.
const (
	// EventResolved: the question ended; Result says how.
	EventResolved = "resolved"
	// EventExtended: someone snoozed the pending question, moving its
	// deadline to Result.ExpiresAt.
	EventExtended = "extended"
)

// Extension is the snooze an extended event reports.
type Extension struct {
	// ExpiresAt is the question's new deadline.
	ExpiresAt time.Time `json:"expires_at"`
	// SnoozedBy is the person who snoozed it.
	SnoozedBy Responder `json:"snoozed_by"`
	// Snoozes is how many times the question has been snoozed, this
	// snooze included.
	Snoozes int `json:"snoozes"`
	// ExtendedAt is when it was snoozed.
	ExtendedAt time.Time `json:"extended_at"`
}

// EventsFilter selects what Events streams.
type EventsFilter struct {
	// SessionID keeps one session's events ("" means all of the
	// agent's).
	SessionID string
	// LastEventID resumes after that event. Empty starts at the end of
	// the log (only what happens from now on); "0" replays everything
	// the server still keeps.
	LastEventID string
}

// streamIdle is how long a stream may stay silent (the server sends a
// heartbeat every 15 s) before it is taken as lost and reopened.
const streamIdle = 45 * time.Second

// Events streams the agent's resolutions, and the snoozes that move the
// deadlines of its pending questions, until ctx ends. It reconnects
// after lost connections and server restarts, resuming after the last
// event it delivered, so every event arrives once, in order. The
// events channel closes when the stream ends for good; the error channel
// then holds the reason, if any other than ctx ending (a refused key, a
// bad LastEventID).
func (c *Client) Events(ctx context.Context, f EventsFilter) (<-chan Event, <-chan error) {
	out := make(chan Event)
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		defer close(out)
		last := f.LastEventID
		r := c.newRetrier()
		tctx := r.trace(ctx)
		for {
			reached, err := c.stream(tctx, f.SessionID, &last, out)
			if ctx.Err() != nil {
				return
			}
			if reached {
				r.ok()
			}
			if err := r.pause(ctx, err); err != nil {
				if ctx.Err() == nil {
					errc <- err
				}
				return
			}
		}
	}()
	return out, errc
}

// stream reads one connection of the event stream into out, moving *last
// along; it reports whether the server accepted the stream.
func (c *Client) stream(ctx context.Context, session string, last *string, out chan<- Event) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	v := url.Values{}
	if session != "" {
		v.Set("session_id", session)
	}
	path := "/v1/events"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return false, fmt.Errorf("askbridge: %w", err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if *last != "" {
		req.Header.Set("Last-Event-ID", *last)
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	// The stream outlives the client's per-request timeout; an idle
	// watchdog stands in for it.
	hc := &http.Client{Transport: c.http.Transport}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return false, fmt.Errorf("askbridge: GET /v1/events: %w", ctx.Err())
		}
		return false, &ConnError{Server: c.base, Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, readAPIError(resp)
	}
	idle := time.AfterFunc(streamIdle, cancel)
	defer idle.Stop()

	rd := bufio.NewReader(resp.Body)
	var id, typ string
	var data strings.Builder
	hasID := false
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			if err == io.EOF || ctx.Err() != nil {
				return true, fmt.Errorf("askbridge: event stream ended: %w", io.ErrUnexpectedEOF)
			}
			return true, fmt.Errorf("askbridge: event stream: %w", err)
		}
		idle.Reset(streamIdle)
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if hasID {
				*last = id
			}
			if typ != "" && data.Len() > 0 {
				ev := Event{ID: id, Type: typ}
				if err := json.Unmarshal([]byte(data.String()), &ev.Result); err != nil {
					return true, fmt.Errorf("askbridge: event %s: %w", id, err)
				}
				if typ == EventExtended {
					ev.Extension = new(Extension)
					if err := json.Unmarshal([]byte(data.String()), ev.Extension); err != nil {
						return true, fmt.Errorf("askbridge: event %s: %w", id, err)
					}
				}
				select {
				case out <- ev:
				case <-ctx.Done():
					return true, ctx.Err()
				}
			}
			typ, hasID = "", false
			data.Reset()
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			id, hasID = value, true
		case "event":
			typ = value
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(value)
		}
	}
}

// readAPIError turns an error answer into *APIError.
func readAPIError(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var eb struct {
		Error APIError `json:"error"`
	}
	if json.Unmarshal(data, &eb) != nil || eb.Error.Message == "" {
		eb.Error.Message = strings.TrimSpace(string(data))
	}
	eb.Error.StatusCode = resp.StatusCode
	return &eb.Error
}
