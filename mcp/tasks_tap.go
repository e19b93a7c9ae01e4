package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/askbridge/askbridge/client"
)

// Status notifications over /mcp. The server offers no standalone GET
// stream, and a task's tools/call answers at once, so the one stream a
// 2025-11-25 task has over HTTP is that of a tasks/result waiting for its
// answer. The SDK sends no notification of a method it does not know, so
// the HTTP handler hands the SDK a ResponseWriter (tap) that lets the
// task methods put whole server-sent events between the SDK's own: while
// tasks/result waits, it sends notifications/tasks/status with the task
// as it stands when it starts waiting, then at each snooze, escalation,
// and at the end, before the result.

// tapHeader names, inside the server, the tap of a POST that may carry a
// tasks/result; a client's own is removed.
const tapHeader = "X-Askbridge-Mcp-Tap"

// taps are the taps of the requests under way, by id.
type taps struct {
	mu sync.Mutex
	m  map[string]*tap
}

// tap is a ResponseWriter whose writes are whole: the SDK writes one
// event a Write, and an event of the tap's goes between two of them.
type tap struct {
	http.ResponseWriter
	mu sync.Mutex
}

func (t *tap) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ResponseWriter.Write(b)
}

// Unwrap returns the underlying ResponseWriter, for
// http.ResponseController (flushes and write deadlines).
func (t *tap) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// Flush sends what was written.
func (t *tap) Flush() { _ = http.NewResponseController(t.ResponseWriter).Flush() }

// send writes msg as a server-sent event, when the response is a stream
// of them (the SDK answers in JSON to a client that takes only JSON).
func (t *tap) send(msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if mt, _, _ := mime.ParseMediaType(t.Header().Get("Content-Type")); mt != "text/event-stream" {
		return errors.New("mcp: the response is not an event stream")
	}
	var b bytes.Buffer
	b.WriteString("event: message\ndata: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := t.ResponseWriter.Write(b.Bytes()); err != nil {
		return err
	}
	return http.NewResponseController(t.ResponseWriter).Flush()
}

// tapFor wraps w for a POST whose body may hold a tasks/result, and
// names the tap in r's header; done forgets it.
func (s *Server) tapFor(w http.ResponseWriter, r *http.Request, body []byte) (http.ResponseWriter, func()) {
	if !bytes.Contains(body, []byte(MethodTasksResult)) {
		return w, func() {}
	}
	t := &tap{ResponseWriter: w}
	id := randomHex(8)
	s.taps.mu.Lock()
	if s.taps.m == nil {
		s.taps.m = map[string]*tap{}
	}
	s.taps.m[id] = t
	s.taps.mu.Unlock()
	r.Header.Set(tapHeader, id)
	return t, func() {
		s.taps.mu.Lock()
		delete(s.taps.m, id)
		s.taps.mu.Unlock()
	}
}

// tapStatus sends the status notifications of question res on the tap
// named id: the task as it stands now, then each snooze and escalation
// while ctx lasts. stop ends them and waits; given the question ended, it
// sends its last status, so that it comes before the result.
func (s *Server) tapStatus(ctx context.Context, id string, a Asker, res *client.Result) (stop func(ended *client.Result)) {
	s.taps.mu.Lock()
	t := s.taps.m[id]
	s.taps.mu.Unlock()
	if t == nil {
		return func(*client.Result) {}
	}
	send := func(res *client.Result, trail []client.AuditEntry) {
		raw, err := json.Marshal(taskOf(res, trail).v2025())
		if err == nil {
			err = t.send(&jsonrpc.Request{Method: NotificationTaskStatus, Params: raw})
		}
		if err != nil {
			s.log.Debug("mcp task: status notification", "question_id", res.ID, "err", err)
		}
	}
	send(res, s.trail(ctx, a, res))
	fctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		s.followTask(fctx, a, res, func(_ context.Context, res *client.Result, trail []client.AuditEntry) error {
			if !res.Terminal() {
				send(res, trail)
			}
			return nil
		})
	})
	return func(ended *client.Result) {
		cancel()
		wg.Wait()
		if ended != nil && ended.Terminal() {
			send(ended, nil)
		}
	}
}
