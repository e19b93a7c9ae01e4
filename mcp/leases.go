package mcp

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/askbridge/askbridge/client"
)

// DefaultLease is the lease of ask_user's questions when the call names
// none: the question is cancelled when the asking server has shown no
// sign of life for that long (a killed process, an ended HTTP session).
const DefaultLease = 60 * time.Second

// ReasonAgentGone is the reason of a question whose MCP session ended, as
// when its lease lapses.
const ReasonAgentGone = "the asking agent is gone"

// errAgentGone is the cause of a call's context when its session ended.
var errAgentGone = errors.New(ReasonAgentGone)

// callHeader carries, inside the server, the id of the HTTP request that
// brought a tool call, so that the call can learn when that request ends.
const callHeader = "X-Askbridge-Mcp-Request"

// leases keeps the questions of a server's sessions alive: it renews the
// leases of questions whose calls returned while they were pending, and
// ends them, with the calls under way, when their session ends.
type leases struct {
	mu sync.Mutex
	// held are the pending questions no call waits for, by id.
	held map[string]*heldQuestion
	// calls are the cancel functions of the calls under way, by session.
	calls map[string]map[*context.CancelCauseFunc]struct{}
	// requests are the contexts of the HTTP requests under way, by id.
	requests map[string]context.Context
}

type heldQuestion struct {
	asker   Asker
	session string
	lease   time.Duration
	renewed time.Time
}

func newLeases() *leases {
	return &leases{held: map[string]*heldQuestion{}, calls: map[string]map[*context.CancelCauseFunc]struct{}{}, requests: map[string]context.Context{}}
}

// hold keeps renewing the lease of a question left pending by a call. A
// task's question is tied to no session: no session's end cancels it.
func (l *leases) hold(a Asker, session string, r *client.Result, lease time.Duration) {
	if r == nil || r.ID == "" || r.Terminal() || lease <= 0 {
		return
	}
	if isTaskQuestion(r) {
		session = ""
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[r.ID] = &heldQuestion{asker: a, session: session, lease: lease, renewed: time.Now()}
}

// release stops renewing the question's lease.
func (l *leases) release(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.held, id)
}

// call ties a tool call to its session and to the HTTP request that
// carried it: the returned context ends when the session ends (cause
// errAgentGone) or that request goes away. done must be called when the
// call returns.
func (l *leases) call(ctx context.Context, session string, h http.Header) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := func() bool { return false }
	if h != nil {
		l.mu.Lock()
		req := l.requests[h.Get(callHeader)]
		l.mu.Unlock()
		if req != nil {
			stop = context.AfterFunc(req, func() { cancel(context.Canceled) })
		}
	}
	if session == "" {
		return ctx, func() { stop(); cancel(nil) }
	}
	l.mu.Lock()
	if l.calls[session] == nil {
		l.calls[session] = map[*context.CancelCauseFunc]struct{}{}
	}
	l.calls[session][&cancel] = struct{}{}
	l.mu.Unlock()
	return ctx, func() {
		stop()
		l.mu.Lock()
		delete(l.calls[session], &cancel)
		if len(l.calls[session]) == 0 {
			delete(l.calls, session)
		}
		l.mu.Unlock()
		cancel(nil)
	}
}

// request remembers the context of an HTTP request under an id its tool
// calls can name; the returned function forgets it.
func (l *leases) request(ctx context.Context) (id string, forget func()) {
	id = randomHex(12)
	l.mu.Lock()
	l.requests[id] = ctx
	l.mu.Unlock()
	return id, func() {
		l.mu.Lock()
		delete(l.requests, id)
		l.mu.Unlock()
	}
}

// sessionEnded ends the calls under way in the session and cancels its
// held questions with ReasonAgentGone.
func (s *Server) sessionEnded(session string) {
	if session == "" {
		return
	}
	l := s.leases
	l.mu.Lock()
	for c := range l.calls[session] {
		(*c)(errAgentGone)
	}
	delete(l.calls, session)
	var ended []string
	var askers []Asker
	for id, h := range l.held {
		if h.session == session {
			ended, askers = append(ended, id), append(askers, h.asker)
			delete(l.held, id)
		}
	}
	l.mu.Unlock()
	for i, id := range ended {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := askers[i].Cancel(ctx, id, ReasonAgentGone)
		cancel()
		if err != nil && !isClosed(err) {
			s.log.Warn("mcp: cancel question of an ended session", "question_id", id, "session_id", session, "err", err)
			continue
		}
		s.log.Info("mcp session ended; question cancelled", "question_id", id, "session_id", session)
	}
}

// keepLeases renews the leases of the held questions, each every third of
// its lease, until ctx ends; it forgets the questions that ended.
func (s *Server) keepLeases(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.endGoneSessions()
		l := s.leases
		type due struct {
			id string
			a  Asker
		}
		var list []due
		now := time.Now()
		l.mu.Lock()
		for id, h := range l.held {
			if now.Sub(h.renewed) >= h.lease/3 {
				h.renewed = now
				list = append(list, due{id, h.asker})
			}
		}
		l.mu.Unlock()
		for _, d := range list {
			gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			r, err := d.a.Get(gctx, d.id, 0) // every read renews the lease
			cancel()
			var ae *client.APIError
			if (err == nil && r.Terminal()) || (errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound) {
				l.release(d.id)
			}
		}
	}
}

// endGoneSessions ends, as if the client had, every session that holds
// questions but is no longer open: the SDK closed it after its idle
// timeout (SessionTimeout), which no request reports. The sessions
// counted per agent forget it too.
func (s *Server) endGoneSessions() {
	s.leases.mu.Lock()
	none := len(s.leases.held) == 0
	s.leases.mu.Unlock()
	if none && !s.sessions.tracked() {
		return
	}
	live := s.pruneSessions()
	if none {
		return
	}
	gone := map[string]bool{}
	s.leases.mu.Lock()
	for _, h := range s.leases.held {
		if h.session != "" && !live[h.session] {
			gone[h.session] = true
		}
	}
	s.leases.mu.Unlock()
	for session := range gone {
		s.log.Info("mcp session closed after its idle timeout", "session_id", session)
		s.sessionEnded(session)
	}
}

// isClosed reports a 409 for a question that had already ended.
func isClosed(err error) bool {
	var ae *client.APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusConflict
}
