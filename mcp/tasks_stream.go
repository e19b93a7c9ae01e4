package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/backoff"
)

// Status notifications of tasks go on the connections Run serves (stdio):
// the SDK sends no notification of a method it does not know, so the
// connection is wrapped (taskConn) and writes them beside the SDK's
// messages. The same wrapper gives a tools/call its params.task, which
// the SDK's params drop. Over HTTP the server has no stream to put them
// on outside a request (it offers no standalone GET stream): they go on
// the stream of a tasks/result that waits (tasks_tap.go).
//
// A task gets notifications when it was made with params.task
// (2025-11-25) on such a connection: one when someone snoozes its question
// (with the new deadline), one when it is escalated, and one when it
// ends. The extension's come on a subscriptions/listen that names the
// tasks, served by the same wrapper (tasks_listen.go).

// taskStreams are the connections of Run that carry status
// notifications, by id.
type taskStreams struct {
	mu   sync.Mutex
	byID map[string]*taskStream
}

// taskStream is one such connection with the watchers of its tasks,
// which end with it.
type taskStream struct {
	id     string
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	conn *taskConn
	// listens are the listens for task statuses open on the connection
	// (tasks_listen.go).
	listens listens
}

// streamTasks wraps t so that its connection carries the status
// notifications of the tasks made on it. done ends the watchers of those
// tasks and waits for them.
func (s *Server) streamTasks(ctx context.Context, t sdk.Transport) (wrapped sdk.Transport, done func()) {
	st := &taskStream{id: randomHex(8)}
	st.ctx, st.cancel = context.WithCancel(ctx)
	s.streams.mu.Lock()
	if s.streams.byID == nil {
		s.streams.byID = map[string]*taskStream{}
	}
	s.streams.byID[st.id] = st
	s.streams.mu.Unlock()
	return &taskTransport{inner: t, st: st, srv: s}, func() {
		s.streams.mu.Lock()
		delete(s.streams.byID, st.id)
		s.streams.mu.Unlock()
		st.cancel()
		st.wg.Wait()
	}
}

// taskTransport is a transport whose connection is a taskConn.
type taskTransport struct {
	inner sdk.Transport
	st    *taskStream
	srv   *Server
}

// Connect implements sdk.Transport.
func (t *taskTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	tc := &taskConn{Connection: c, stream: t.st.id, st: t.st, srv: t.srv}
	t.st.mu.Lock()
	t.st.conn = tc
	t.st.mu.Unlock()
	return tc, nil
}

// SupportsProtocolVersion tells the SDK what the inner transport serves.
func (t *taskTransport) SupportsProtocolVersion(v string) bool {
	if p, ok := t.inner.(sdk.ProtocolVersionSupporter); ok {
		return p.SupportsProtocolVersion(v)
	}
	return true
}

// taskConn is the connection taskTransport hands the SDK. The SDK tells a
// stdio connection the negotiated protocol version through an unexported
// method, which a wrapper cannot pass on; the one effect is that the
// connection keeps accepting JSON-RPC batches on versions that dropped
// them.
type taskConn struct {
	sdk.Connection
	stream string
	st     *taskStream
	srv    *Server
	// wmu orders the SDK's writes and the notifications on one lock.
	wmu sync.Mutex
}

// Read hands a tools/call with params.task its param and this
// connection's id in the request's header, as the HTTP handler does.
//
// A subscriptions/listen for task statuses (tasks_listen.go) is served
// here, never reaching the SDK, whose listen does not carry them, and so
// is the cancellation that ends one.
func (c *taskConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			return msg, nil
		}
		if c.srv.takeListen(c.st, req) {
			continue
		}
		if req.IsCall() && req.Method == "tools/call" && req.Extra == nil && bytes.Contains(req.Params, []byte(`"task"`)) {
			if param, ok := paramsTask(req.Params); ok {
				req.Extra = &sdk.RequestExtra{Header: http.Header{taskHeader: {param}, streamHeader: {c.stream}}}
			}
		}
		return msg, nil
	}
}

// Write implements sdk.Connection.
func (c *taskConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.Connection.Write(ctx, msg)
}

// notify writes a 2025-11-25 status notification of t.
func (st *taskStream) notify(ctx context.Context, t taskState) error {
	raw, err := json.Marshal(t.v2025())
	if err != nil {
		return err
	}
	return st.write(ctx, &jsonrpc.Request{Method: NotificationTaskStatus, Params: raw})
}

// write writes msg on the stream's connection.
func (st *taskStream) write(ctx context.Context, msg jsonrpc.Message) error {
	st.mu.Lock()
	c := st.conn
	st.mu.Unlock()
	if c == nil {
		return errors.New("mcp: the connection is not open")
	}
	return c.Write(ctx, msg)
}

// watchTask follows the question of a task made on the stream named id,
// sending its status notifications until it ends or the stream does.
func (s *Server) watchTask(id string, a Asker, first *client.Result) {
	s.streams.mu.Lock()
	st := s.streams.byID[id]
	s.streams.mu.Unlock()
	if st == nil || first.Terminal() {
		return
	}
	st.wg.Go(func() {
		s.followTask(st.ctx, a, first, func(ctx context.Context, res *client.Result, trail []client.AuditEntry) error {
			return st.notify(ctx, taskOf(res, trail))
		})
	})
}

// followTask long-polls the question until it ends or ctx does, handing
// emit each change: a snooze ends a long-poll early, with the new
// deadline, and so does its end; each poll then reads the audit trail for
// escalations, which end no long-poll and so are told within a poll
// (PollWait).
func (s *Server) followTask(ctx context.Context, a Asker, last *client.Result, emit func(context.Context, *client.Result, []client.AuditEntry) error) {
	// Escalations before the follow began are not news.
	escalations := countEscalations(s.trail(ctx, a, last))
	pauses := backoff.New(retryDelay, maxRetryDelay)
	for {
		started := time.Now()
		res, err := a.Get(ctx, last.ID, s.cfg.PollWait)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			var ae *client.APIError
			if errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound {
				return
			}
			s.log.Debug("mcp task: follow", "question_id", last.ID, "err", err)
			if pauses.Wait(ctx) != nil {
				return
			}
			continue
		}
		pauses.Reset()
		trail := s.trail(ctx, a, res)
		n := countEscalations(trail)
		if res.Terminal() || res.Snoozes > last.Snoozes || n > escalations {
			if err := emit(ctx, res, trail); err != nil {
				s.log.Debug("mcp task: status notification", "question_id", res.ID, "err", err)
			}
		}
		if res.Terminal() {
			return
		}
		moved := res.Snoozes > last.Snoozes
		last, escalations = res, max(n, escalations)
		if !moved && time.Since(started) < s.cfg.PollWait/2 {
			// The bridge answered early (it is draining for a restart):
			// pause before asking again.
			if pauses.Wait(ctx) != nil {
				return
			}
		}
	}
}

func countEscalations(trail []client.AuditEntry) int {
	n := 0
	for _, e := range trail {
		if e.Kind == auditEscalated {
			n++
		}
	}
	return n
}
