package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// Status notifications of the extension's tasks. A client asks for them
// with a subscriptions/listen whose notifications name the tasks
// (tasksStatus, SEP-2663 on SEP-2575's listen); the server acknowledges
// the tasks it agrees to follow (notifications/subscriptions/acknowledged)
// and then sends, on the listen's stream, a notifications/tasks/status
// with the whole task (as tasks/get returns it) whenever its question is
// snoozed, escalated or ends; a task that already ended gets one at once.
// The listen ends with its result once every task it follows has ended,
// or when the client cancels it. Each message carries the listen's id in
// _meta (io.modelcontextprotocol/subscriptionId).
//
// The SDK's listen has no tasksStatus, so the connection (taskConn) serves
// these listens itself; a listen without tasksStatus goes to the SDK.

// The methods of a listen.
const (
	methodListen          = "subscriptions/listen"
	notificationListenAck = "notifications/subscriptions/acknowledged"
	notificationCancelled = "notifications/cancelled"
)

// MaxListenTasks is how many tasks one listen follows.
const MaxListenTasks = 100

// listenParams are the params of a subscriptions/listen, as far as tasks
// go.
type listenParams struct {
	Meta          map[string]json.RawMessage `json:"_meta"`
	Notifications struct {
		TasksStatus *[]string `json:"tasksStatus"`
	} `json:"notifications"`
}

// declared reports whether the request's capabilities in _meta declare
// the extension.
func (p *listenParams) declared() bool {
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if raw, ok := p.Meta[sdk.MetaKeyClientCapabilities]; !ok || json.Unmarshal(raw, &caps) != nil {
		return false
	}
	_, ok := caps.Extensions[ExtensionTasks]
	return ok
}

// listens are the open listens of a stream, by request id.
type listens struct {
	mu sync.Mutex
	m  map[any]context.CancelFunc
}

// takeListen serves req when it is a listen for task statuses, or the
// cancellation of one, and reports whether it did.
func (s *Server) takeListen(st *taskStream, req *jsonrpc.Request) bool {
	switch {
	case req.IsCall() && req.Method == methodListen:
		var p listenParams
		if json.Unmarshal(req.Params, &p) != nil || p.Notifications.TasksStatus == nil {
			return false
		}
		// Registered before the reads and writes, which run beside the
		// connection's reading, so that a cancel right after finds it.
		lctx, cancel := context.WithCancel(st.ctx)
		st.listens.mu.Lock()
		if st.listens.m == nil {
			st.listens.m = map[any]context.CancelFunc{}
		}
		st.listens.m[idKey(req.ID.Raw())] = cancel
		st.listens.mu.Unlock()
		st.wg.Go(func() { s.listen(lctx, cancel, st, req.ID, &p) })
		return true
	case !req.IsCall() && req.Method == notificationCancelled:
		var p struct {
			RequestID any `json:"requestId"`
		}
		if json.Unmarshal(req.Params, &p) != nil || p.RequestID == nil {
			return false
		}
		st.listens.mu.Lock()
		cancel, ok := st.listens.m[idKey(p.RequestID)]
		delete(st.listens.m, idKey(p.RequestID))
		st.listens.mu.Unlock()
		if ok {
			cancel()
		}
		return ok
	}
	return false
}

// idKey is a request id as a map key: JSON numbers decode as float64,
// and the SDK's ids hold int64.
func idKey(v any) any {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return v
}

// listen answers a listen for the statuses of the tasks p names, until
// lctx ends (cancel ends it).
func (s *Server) listen(lctx context.Context, cancel context.CancelFunc, st *taskStream, id jsonrpc.ID, p *listenParams) {
	ctx := st.ctx
	key := idKey(id.Raw())
	forget := func() {
		st.listens.mu.Lock()
		delete(st.listens.m, key)
		st.listens.mu.Unlock()
		cancel()
	}
	fail := func(err error) {
		forget()
		var we *jsonrpc.Error
		if !errors.As(err, &we) {
			we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		if werr := st.write(ctx, &jsonrpc.Response{ID: id, Error: we}); werr != nil {
			s.log.Debug("mcp listen: error response", "err", werr)
		}
	}
	if !p.declared() {
		fail(missingExtension())
		return
	}
	ids := *p.Notifications.TasksStatus
	if len(ids) > MaxListenTasks {
		fail(taskError(jsonrpc.CodeInvalidParams, fmt.Sprintf("notifications.tasksStatus: at most %d tasks a listen, got %d", MaxListenTasks, len(ids))))
		return
	}
	a, err := s.cfg.Asker(nil)
	if err != nil {
		fail(err)
		return
	}
	meta := sdk.Meta{sdk.MetaKeySubscriptionID: id.Raw()}
	agreed := []string{}
	var tasks []*client.Result
	seen := map[string]bool{}
	for _, tid := range ids {
		if seen[tid] {
			continue
		}
		seen[tid] = true
		// Only the agent's own tasks: another's, or none, is left out
		// of the acknowledgement.
		if res, err := s.getOnce(lctx, a, tid); err == nil {
			agreed = append(agreed, tid)
			tasks = append(tasks, res)
		}
	}
	ack, _ := json.Marshal(map[string]any{"_meta": meta, "notifications": map[string]any{"tasksStatus": agreed}})
	if lctx.Err() != nil || st.write(ctx, &jsonrpc.Request{Method: notificationListenAck, Params: ack}) != nil {
		forget()
		return
	}
	emit := func(ctx context.Context, res *client.Result, trail []client.AuditEntry) error {
		raw, err := s.detailedTask(ctx, a, res, trail, meta)
		if err != nil {
			return err
		}
		return st.write(ctx, &jsonrpc.Request{Method: NotificationTaskStatus, Params: raw})
	}
	var followers sync.WaitGroup
	for _, res := range tasks {
		if res.Terminal() {
			if err := emit(lctx, res, nil); err != nil {
				s.log.Debug("mcp listen: status notification", "question_id", res.ID, "err", err)
			}
			continue
		}
		followers.Go(func() { s.followTask(lctx, a, res, emit) })
	}
	followers.Wait()
	st.listens.mu.Lock()
	_, open := st.listens.m[key]
	st.listens.mu.Unlock()
	ended := !open || lctx.Err() != nil
	forget()
	if ended {
		return // cancelled by the client, or the stream ended
	}
	// Every task ended: the listen ends, with its result.
	end, _ := json.Marshal(map[string]any{"_meta": meta, "resultType": resultTypeComplete})
	if err := st.write(ctx, &jsonrpc.Response{ID: id, Result: end}); err != nil {
		s.log.Debug("mcp listen: end", "err", err)
	}
}

// detailedTask is the extension's task of question res as tasks/get
// returns it, without its resultType, with meta: the params of a status
// notification.
func (s *Server) detailedTask(ctx context.Context, a Asker, res *client.Result, trail []client.AuditEntry, meta sdk.Meta) (json.RawMessage, error) {
	r := &taskReply{task: taskOf(res, trail), shape: shapeExtension, form: formTask}
	if r.task.status == taskCompleted {
		r.result = s.result(ctx, a, res)
	}
	r.inputs = s.withInput(&r.task)
	r.Meta = meta
	b, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "resultType")
	return json.Marshal(m)
}
