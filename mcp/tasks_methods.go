package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// AuditReader is implemented by Askers that read a question's audit
// trail (*client.Client does). With one, a task reports the snoozes and
// escalations of its question, and a task whose question the bridge no
// longer keeps is told apart from one that never was: it has expired.
type AuditReader interface {
	Audit(ctx context.Context, id string) ([]client.AuditEntry, error)
}

// Lister is implemented by Askers that list the agent's questions
// (*client.Client does); tasks/list needs one.
type Lister interface {
	List(ctx context.Context, sessionID string, status client.Status) ([]client.Result, error)
}

var (
	_ AuditReader = (*client.Client)(nil)
	_ Lister      = (*client.Client)(nil)
)

// TaskCancelReason is the reason people see when tasks/cancel cancels a
// question, as for cancel_question without a reason.
const TaskCancelReason = "withdrawn by the agent"

// taskGet is tasks/get: the task as its question stands, with the result
// once completed in the extension's shape.
func (s *Server) taskGet(ctx context.Context, _ *sdk.ServerSession, p *taskIDParams) (*taskReply, error) {
	a, res, err := s.lookup(ctx, p.call, p.TaskID)
	if err != nil {
		return nil, err
	}
	r := &taskReply{task: taskOf(res, s.trail(ctx, a, res)), shape: p.call.shape, form: formTask}
	if p.call.shape == shapeExtension && r.task.status == taskCompleted {
		r.result = s.result(ctx, a, res)
	}
	if p.call.shape == shapeExtension {
		r.inputs = s.withInput(&r.task)
	}
	return r, nil
}

// taskResult is tasks/result: it waits while the question is pending,
// then returns what ask_user would have, tied to the task by its _meta. A
// cancelled question has no result.
func (s *Server) taskResult(ctx context.Context, _ *sdk.ServerSession, p *taskIDParams) (*sdk.CallToolResult, error) {
	a, res, err := s.lookup(ctx, p.call, p.TaskID)
	if err != nil {
		return nil, err
	}
	if !res.Terminal() {
		stop := func(*client.Result) {}
		if p.call.tap != "" && p.call.shape == shape2025 {
			stop = s.tapStatus(ctx, p.call.tap, a, res)
		}
		res, err = s.waitFor(ctx, a, res.ID, 0, func(*client.Result) {})
		stop(res)
		switch {
		case err != nil:
			return nil, s.lookupError(ctx, a, p.TaskID, err)
		case res.Terminal():
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			return nil, taskError(jsonrpc.CodeInternalError, fmt.Sprintf("the bridge is restarting: task %s is still working; call tasks/result again", res.ID))
		}
	}
	if res.Status == client.StatusCancelled {
		return nil, taskError(jsonrpc.CodeInvalidParams, fmt.Sprintf("task %s was cancelled (%s): it has no result", res.ID, orNone(res.Reason)))
	}
	out := s.result(ctx, a, res)
	out.Meta = sdk.Meta{metaRelatedTask: relatedTask(res.ID)}
	if taskOf(res, nil).status == taskFailed {
		// A failed task's result is an error result, as the
		// specification pairs them.
		out.IsError = true
	}
	return out, nil
}

// taskCancel is tasks/cancel: it cancels the question, whose copies are
// then edited to say so, and answers the cancelled task (2025-11-25) or
// an acknowledgement (the extension). A task that already ended is an
// error.
func (s *Server) taskCancel(ctx context.Context, _ *sdk.ServerSession, p *taskIDParams) (*taskReply, error) {
	a, err := s.taskAsker(p.call, p.TaskID)
	if err != nil {
		return nil, err
	}
	res, err := a.Cancel(ctx, p.TaskID, TaskCancelReason)
	if isClosed(err) {
		cur, gerr := s.getOnce(ctx, a, p.TaskID)
		if gerr != nil {
			return nil, s.lookupError(ctx, a, p.TaskID, gerr)
		}
		t := taskOf(cur, nil)
		return nil, taskError(jsonrpc.CodeInvalidParams, fmt.Sprintf("Cannot cancel task %s: it is already in terminal status '%s' (%s)", cur.ID, t.status, t.message))
	}
	if err != nil {
		return nil, s.lookupError(ctx, a, p.TaskID, err)
	}
	s.leases.release(res.ID)
	s.forms.take(res.ID)
	s.log.Info("mcp task cancelled", "question_id", res.ID)
	if p.call.shape == shapeExtension {
		return &taskReply{shape: shapeExtension, form: formAck}, nil
	}
	return &taskReply{task: taskOf(res, nil), shape: shape2025, form: formTask}, nil
}

// taskUpdate is the extension's tasks/update. The one input request a
// task makes is its local form (tasks_input.go): its response settles the
// race before the acknowledgement. Responses to requests that are not
// outstanding are ignored, as the extension says, and the update is
// acknowledged for a task that exists.
func (s *Server) taskUpdate(ctx context.Context, _ *sdk.ServerSession, p *taskUpdateParams) (*taskReply, error) {
	a, res, err := s.lookup(ctx, p.call, p.TaskID)
	if err != nil {
		return nil, err
	}
	if len(p.InputResponses) > 0 && !res.Terminal() {
		s.answerTaskForm(ctx, a, res.ID, p.InputResponses)
	}
	return &taskReply{shape: p.call.shape, form: formAck}, nil
}

// taskList is tasks/list: the agent's pending questions (the bridge's
// listing: the newest 100), newest first, TasksPageSize a page.
func (s *Server) taskList(ctx context.Context, _ *sdk.ServerSession, p *taskListParams) (*taskPage, error) {
	if p.call.shape == shapeExtension && !p.call.declared {
		return nil, missingExtension()
	}
	after, err := decodeCursor(p.Cursor)
	if err != nil {
		return nil, err
	}
	a, err := s.cfg.Asker(p.call.header)
	if err != nil {
		return nil, taskError(jsonrpc.CodeInternalError, err.Error())
	}
	l, ok := a.(Lister)
	if !ok {
		return nil, taskError(jsonrpc.CodeInternalError, "tasks/list: this server's connection to the bridge cannot list questions")
	}
	qs, err := l.List(ctx, "", client.StatusPending)
	if err != nil {
		return nil, taskError(jsonrpc.CodeInternalError, bridgeError(err, 0).Error())
	}
	sort.Slice(qs, func(i, j int) bool { return listedBefore(qs[i].CreatedAt, qs[i].ID, qs[j].CreatedAt, qs[j].ID) })
	page := &taskPage{shape: p.call.shape, tasks: []taskState{}}
	for i := range qs {
		q := &qs[i]
		if after != nil && !listedBefore(after.Created, after.ID, q.CreatedAt, q.ID) {
			continue
		}
		if len(page.tasks) == TasksPageSize {
			last := page.tasks[len(page.tasks)-1]
			page.next = encodeCursor(cursor{Created: last.created, ID: last.id})
			break
		}
		t := taskOf(q, nil)
		if p.call.shape == shapeExtension {
			s.withInput(&t)
		}
		page.tasks = append(page.tasks, t)
	}
	return page, nil
}

// listedBefore orders tasks/list: newest first, then by id.
func listedBefore(at time.Time, id string, bt time.Time, bid string) bool {
	if !at.Equal(bt) {
		return at.After(bt)
	}
	return id < bid
}

// cursor is where a page of tasks/list ends: the last task it holds.
type cursor struct {
	Created time.Time `json:"c"`
	ID      string    `json:"i"`
}

func encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (*cursor, error) {
	if s == "" {
		return nil, nil
	}
	var c cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.ID == "" || c.Created.IsZero() {
		return nil, taskError(jsonrpc.CodeInvalidParams, fmt.Sprintf("cursor: %q is not a cursor tasks/list returned; leave it out for the first page", s))
	}
	return &c, nil
}

// taskAsker checks a task method's request and returns its Asker.
func (s *Server) taskAsker(c taskCall, id string) (Asker, error) {
	if c.shape == shapeExtension && !c.declared {
		return nil, missingExtension()
	}
	if strings.TrimSpace(id) == "" {
		return nil, taskError(jsonrpc.CodeInvalidParams, "taskId: give the id of a task (the taskId that tools/call returned)")
	}
	a, err := s.cfg.Asker(c.header)
	if err != nil {
		return nil, taskError(jsonrpc.CodeInternalError, err.Error())
	}
	return a, nil
}

// lookup reads the question of task id, or returns the JSON-RPC error
// that says why there is none.
func (s *Server) lookup(ctx context.Context, c taskCall, id string) (Asker, *client.Result, error) {
	a, err := s.taskAsker(c, id)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.getOnce(ctx, a, id)
	if err != nil {
		return nil, nil, s.lookupError(ctx, a, id, err)
	}
	return a, res, nil
}

// lookupError is the JSON-RPC error of a failed read of task id's
// question: a task the agent has no question for is unknown (another
// agent's too: the bridge shows each agent only its own), one whose
// question the bridge no longer keeps but whose audit trail it has has
// expired, and anything else is the bridge's failure.
func (s *Server) lookupError(ctx context.Context, a Asker, id string, err error) error {
	var ae *client.APIError
	if !errors.As(err, &ae) || (ae.StatusCode != http.StatusNotFound && ae.StatusCode != http.StatusBadRequest) {
		return taskError(jsonrpc.CodeInternalError, bridgeError(err, 0).Error())
	}
	if ae.StatusCode == http.StatusNotFound {
		if ar, ok := a.(AuditReader); ok {
			if trail, aerr := ar.Audit(ctx, id); aerr == nil && len(trail) > 0 {
				return taskError(jsonrpc.CodeInvalidParams, fmt.Sprintf("Failed to retrieve task: task %s has expired: its question ended%s and the bridge no longer keeps it (store.retention)", id, endedAt(trail)))
			}
		}
	}
	return taskError(jsonrpc.CodeInvalidParams, fmt.Sprintf("Failed to retrieve task: task %q not found: no question of this agent has that id", id))
}

// endedAt says when and how a trail's question ended, if it tells.
func endedAt(trail []client.AuditEntry) string {
	for i := len(trail) - 1; i >= 0; i-- {
		if e := trail[i]; e.Kind == "resolved" {
			return fmt.Sprintf(" (%s at %s)", e.Status, e.At.UTC().Format("2006-01-02 15:04:05 UTC"))
		}
	}
	return ""
}

// trail is the audit trail of a pending question, when a can read it; a
// failure leaves the task without its snoozes and escalations.
func (s *Server) trail(ctx context.Context, a Asker, res *client.Result) []client.AuditEntry {
	ar, ok := a.(AuditReader)
	if !ok || res.Terminal() {
		return nil
	}
	trail, err := ar.Audit(ctx, res.ID)
	if err != nil {
		s.log.Debug("mcp task: audit trail", "question_id", res.ID, "err", err)
		return nil
	}
	return trail
}

func orNone(reason string) string {
	if reason == "" {
		return "no reason given"
	}
	return strings.TrimRight(reason, ".")
}
