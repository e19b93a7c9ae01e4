package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/longlived"
)

// eventHeartbeat, when set, replaces the 15 s pause between heartbeat
// comments on an idle event stream, in nanoseconds (tests shorten it).
var eventHeartbeat atomic.Int64

func heartbeatEvery() time.Duration {
	if d := time.Duration(eventHeartbeat.Load()); d > 0 {
		return d
	}
	return 15 * time.Second
}

// eventPage is how many events one read of the log returns.
const eventPage = 500

// eventRoutes mounts the event stream and the delivery status of
// callbacks.
func (s *Server) eventRoutes() {
	// The stream lasts as long as its client: longlived bounds each write
	// by the server's write timeout instead of the whole stream.
	s.mux.Handle("GET /v1/events", longlived.Handler(s.agent(s.events)))
	s.mux.HandleFunc("GET /v1/questions/{id}/deliveries", s.agent(s.deliveries))
}

// events streams the resolutions of the agent's questions as server-sent
// events: "id: <seq>", "event: resolved", "data: <result JSON>"; and the
// snoozes that move their deadlines: "event: extended", "data:
// <extension JSON>" (extended.go). It
// replays the event log after Last-Event-ID (the header, or
// ?last_event_id=), then follows new resolutions; without an id it starts
// at the end of the log ("0" replays everything the log keeps).
// ?session_id= keeps one session's events. The log is the record; a
// resolution of one of the agent's questions (the broker's Follow) only
// says when to read it again, so that other agents' resolutions cost an
// open stream nothing. An agent holds at most Config.StreamsPerAgent
// streams at once on this server; one more is a 429.
func (s *Server) events(w http.ResponseWriter, r *http.Request, agent string) {
	after, fromNow, ok := lastEventID(w, r)
	if !ok {
		return
	}
	if s.drainCtx.Err() != nil {
		writeError(w, http.StatusServiceUnavailable, "draining", "shutting down; reconnect with Last-Event-ID", "")
		return
	}
	if !s.streams.acquire(agent) {
		writeLimit(w, &broker.LimitError{What: "open event streams on this server", Limit: s.cfg.StreamsPerAgent, Setting: StreamsSetting})
		return
	}
	defer s.streams.release(agent)
	session := r.URL.Query().Get("session_id")
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(s.drainCtx, cancel)
	defer stop()

	// Follow before the first read, so nothing resolved in between is
	// missed.
	wake, unfollow := s.b.Follow(agent)
	defer unfollow()
	if fromNow {
		end, err := endOfLog(ctx, s.st, agent)
		if err != nil {
			writeBrokerError(w, err)
			return
		}
		after = end
	}
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The first block carries the stream's position without an event, so
	// a client that loses the connection before any event resumes here.
	if _, err := fmt.Fprintf(w, "retry: 2000\nid: %d\n\n", after); err != nil || rc.Flush() != nil {
		return
	}
	beat := time.NewTicker(heartbeatEvery())
	defer beat.Stop()
	for {
		next, full, err := s.sendEvents(ctx, w, agent, session, after)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, errClientGone) {
				s.log.Warn("event stream: read the event log", "agent", agent, "err", err)
			}
			return
		}
		after = next
		if full {
			continue // more may be waiting
		}
		if rc.Flush() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-beat.C:
			// The heartbeat keeps proxies from closing an idle stream,
			// and the read after it catches anything the feed missed.
			if _, err := fmt.Fprint(w, ": heartbeat\n\n"); err != nil || rc.Flush() != nil {
				return
			}
		}
	}
}

var errClientGone = errors.New("client gone")

// sendEvents writes one page of the events after seq after and returns
// the sequence number to continue from, and whether the page was full.
func (s *Server) sendEvents(ctx context.Context, w http.ResponseWriter, agent, session string, after int64) (int64, bool, error) {
	evs, err := s.st.Events(ctx, agent, after, eventPage)
	if err != nil {
		return after, false, err
	}
	skipped := false
	for _, ev := range evs {
		after = ev.Seq
		if session != "" && ev.SessionID != session {
			skipped = true
			continue
		}
		skipped = false
		typ, data, err := s.eventData(ctx, ev)
		if err != nil {
			return after, false, err
		}
		if _, err := fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", ev.Seq, typ, data); err != nil {
			return after, false, errClientGone
		}
	}
	if skipped {
		// Move the client past events of other sessions, so a resume
		// does not read them again.
		if _, err := fmt.Fprintf(w, "id: %d\n\n", after); err != nil {
			return after, false, errClientGone
		}
	}
	return after, len(evs) == eventPage, nil
}

// eventResult is the result of the question an event is about; when the
// question was purged since, what the event itself says.
func (s *Server) eventResult(ctx context.Context, ev broker.Event) broker.Result {
	q, err := s.b.Get(ctx, ev.Agent, ev.QuestionID)
	if err == nil {
		return q.Result()
	}
	at := ev.At
	return broker.Result{ID: ev.QuestionID, Status: ev.Status, SessionID: ev.SessionID, Answers: map[string]broker.Answer{}, ResolvedAt: &at}
}

// endOfLog returns the sequence number of the agent's latest event.
func endOfLog(ctx context.Context, st broker.EventLog, agent string) (int64, error) {
	var after int64
	for {
		evs, err := st.Events(ctx, agent, after, 1000)
		if err != nil {
			return 0, err
		}
		if len(evs) == 0 {
			return after, nil
		}
		after = evs[len(evs)-1].Seq
		if len(evs) < 1000 {
			return after, nil
		}
	}
}

// lastEventID reads where a stream resumes. It reports fromNow when the
// client names no event, and writes a 400 for an id that is not a whole
// number.
func lastEventID(w http.ResponseWriter, r *http.Request) (after int64, fromNow, ok bool) {
	field, v := "Last-Event-ID", r.Header.Get("Last-Event-ID")
	if v == "" {
		field, v = "last_event_id", r.URL.Query().Get("last_event_id")
	}
	if v == "" {
		return 0, true, true
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		writeError(w, http.StatusBadRequest, "invalid", field+": must be the id of an event the stream sent (a whole number ≥ 0), got "+strconv.Quote(v), field)
		return 0, false, false
	}
	return n, false, true
}

// deliveriesBody is the answer of GET /v1/questions/{id}/deliveries.
type deliveriesBody struct {
	Deliveries []broker.Delivery `json:"deliveries"`
}

// deliveries reports the callback deliveries of the agent's question:
// state (pending, delivered, failed), attempts, next attempt, last error.
func (s *Server) deliveries(w http.ResponseWriter, r *http.Request, agent string) {
	id := r.PathValue("id")
	if _, err := s.b.Get(r.Context(), agent, id); err != nil {
		writeBrokerError(w, err)
		return
	}
	ds, err := s.st.Deliveries(r.Context(), id)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	if ds == nil {
		ds = []broker.Delivery{}
	}
	writeJSON(w, http.StatusOK, deliveriesBody{Deliveries: ds})
}
