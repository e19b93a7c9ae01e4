package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// The statuses of a task that a question takes. A question waits for the
// people the bridge asks; it waits for input from the client only when
// raced at the terminal in the extension's shape (tasks_input.go:
// taskStatusInputRequired). It is failed when the bridge could not deliver it to
// anyone after it became a task (every channel failed for good: the
// bridge resolves it unsupported): the request did not complete, and no
// person saw it.
const (
	taskWorking   = "working"
	taskCompleted = "completed"
	taskFailed    = "failed"
	taskCancelled = "cancelled"
)

// taskState is a question seen as a task.
type taskState struct {
	id      string
	status  string
	message string
	created time.Time
	// updated is when the question last changed: its resolution, else
	// its latest snooze or escalation, else its creation.
	updated time.Time
	// ttl is how long the question lives from its creation: its timeout,
	// moved by snoozes.
	ttl time.Duration
}

// taskOf is question r as a task; trail, when known, is its audit trail,
// which tells the snoozes and escalations of a pending question.
func taskOf(r *client.Result, trail []client.AuditEntry) taskState {
	t := taskState{id: r.ID, created: r.CreatedAt, updated: r.CreatedAt}
	if !r.ExpiresAt.IsZero() && r.ExpiresAt.After(r.CreatedAt) {
		t.ttl = r.ExpiresAt.Sub(r.CreatedAt)
	}
	switch r.Status {
	case client.StatusPending, "":
		t.status = taskWorking
		t.message = "Waiting for an answer" + untilText(r.ExpiresAt)
		if e := lastChange(trail); e != nil {
			t.updated = e.At
			t.message = changeText(e) + "; waiting for an answer" + untilText(r.ExpiresAt)
		}
	case client.StatusCancelled:
		t.status = taskCancelled
		t.message = "Cancelled"
		if r.Reason != "" {
			t.message += ": " + strings.TrimRight(r.Reason, ".")
		}
	case client.StatusUnsupported:
		t.status = taskFailed
		t.message = endText(r)
	default:
		t.status = taskCompleted
		t.message = endText(r)
	}
	if r.ResolvedAt != nil {
		t.updated = *r.ResolvedAt
	}
	return t
}

// lastChange is the latest snooze or escalation of a trail.
func lastChange(trail []client.AuditEntry) *client.AuditEntry {
	for i := len(trail) - 1; i >= 0; i-- {
		if k := trail[i].Kind; k == auditSnoozed || k == auditEscalated {
			return &trail[i]
		}
	}
	return nil
}

// The kinds of audit entries a task reports (broker.AuditSnoozed,
// broker.AuditEscalated).
const (
	auditSnoozed   = "snoozed"
	auditEscalated = "escalated"
)

func changeText(e *client.AuditEntry) string {
	if e.Kind == auditEscalated {
		return "Escalated " + strings.TrimSpace(e.Detail)
	}
	s := "Snoozed"
	if e.By != nil {
		s += " by " + who(e.By)
	}
	return s
}

func untilText(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return " (it times out at " + at.UTC().Format("2006-01-02 15:04:05 UTC") + ")"
}

// endText says in a line how an ended question ended.
func endText(r *client.Result) string {
	switch r.Status {
	case client.StatusAnswered:
		if r.AnsweredBy != nil {
			return "Answered by " + who(r.AnsweredBy)
		}
		return "Answered"
	case client.StatusDeclined:
		s := "Declined"
		if r.NotReady {
			s = "Not ready: wants to discuss it first"
		}
		if r.AnsweredBy != nil {
			s += " (" + who(r.AnsweredBy) + ")"
		}
		if r.Reason != "" {
			s += ": " + strings.TrimRight(r.Reason, ".")
		}
		return s
	case client.StatusTimedOut:
		switch r.Fallback {
		case client.FallbackDefault:
			return "Nobody answered in time; the defaults were used"
		case client.FallbackPartial:
			return "Time ran out; some questions took their defaults"
		}
		return "Nobody answered in time"
	case client.StatusUnsupported:
		if r.Reason != "" {
			return "Not asked: " + strings.TrimRight(r.Reason, ".")
		}
		return "Not asked: no channel could reach anyone"
	}
	return fmt.Sprintf("Ended: %s", r.Status)
}

func who(r *client.Responder) string {
	if r.Name != "" {
		return r.Name
	}
	return r.User
}

// wireTime is a task's time as ISO 8601 in UTC, to the millisecond.
func wireTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// ms is a duration in whole milliseconds, or nil (JSON null: no limit).
func ms(d time.Duration) *int64 {
	if d <= 0 {
		return nil
	}
	v := d.Milliseconds()
	return &v
}

// task2025 is a task in the 2025-11-25 shape.
type task2025 struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval,omitempty"`
}

func (t taskState) v2025() task2025 {
	return task2025{TaskID: t.id, Status: t.status, StatusMessage: t.message, CreatedAt: wireTime(t.created),
		LastUpdatedAt: wireTime(t.updated), TTL: ms(t.ttl), PollInterval: TaskPollInterval.Milliseconds()}
}

// taskExtension is a task in the extension's shape (a DetailedTask).
type taskExtension struct {
	Meta           sdk.Meta            `json:"_meta,omitempty"`
	ResultType     string              `json:"resultType,omitempty"`
	TaskID         string              `json:"taskId"`
	Status         string              `json:"status"`
	StatusMessage  string              `json:"statusMessage,omitempty"`
	CreatedAt      string              `json:"createdAt"`
	LastUpdatedAt  string              `json:"lastUpdatedAt"`
	TTLMs          *int64              `json:"ttlMs"`
	PollIntervalMs int64               `json:"pollIntervalMs,omitempty"`
	Result         *sdk.CallToolResult `json:"result,omitempty"`
	Error          *taskFailure        `json:"error,omitempty"`
	InputRequests  sdk.InputRequestMap `json:"inputRequests,omitempty"`
}

// taskFailure is the JSON-RPC error of a failed task in the extension's
// shape.
type taskFailure struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// failureOf is the error a failed task carries: the bridge's, an
// internal error, with why nobody could be asked.
func failureOf(t taskState) *taskFailure {
	if t.status != taskFailed {
		return nil
	}
	return &taskFailure{Code: jsonrpc.CodeInternalError, Message: t.message}
}

// The result types of the extension.
const (
	resultTypeComplete = "complete"
	resultTypeTask     = "task"
)

// replyForm is what a taskReply answers.
type replyForm int

const (
	// formTask: a task (tasks/get; tasks/cancel of 2025-11-25).
	formTask replyForm = iota
	// formCreated: the task a tools/call made (CreateTaskResult).
	formCreated
	// formAck: the extension's empty acknowledgement.
	formAck
)

// taskReply is the result of a task method, or of a tools/call that made
// a task, in the shape of the request.
type taskReply struct {
	sdk.ResultBase
	task  taskState
	shape shape
	form  replyForm
	// result is a completed task's result (the extension's tasks/get).
	result *sdk.CallToolResult
	// inputs are an input_required task's requests (the extension's).
	inputs sdk.InputRequestMap
}

// MarshalJSON writes the reply in its shape.
func (r *taskReply) MarshalJSON() ([]byte, error) {
	switch {
	case r.form == formAck:
		ack := struct {
			Meta       sdk.Meta `json:"_meta,omitempty"`
			ResultType string   `json:"resultType,omitempty"`
		}{Meta: r.Meta}
		if r.shape == shapeExtension {
			ack.ResultType = resultTypeComplete
		}
		return json.Marshal(ack)
	case r.shape == shape2025 && r.form == formCreated:
		return json.Marshal(struct {
			Meta sdk.Meta `json:"_meta,omitempty"`
			Task task2025 `json:"task"`
		}{r.Meta, r.task.v2025()})
	case r.shape == shape2025:
		return json.Marshal(struct {
			Meta sdk.Meta `json:"_meta,omitempty"`
			task2025
		}{r.Meta, r.task.v2025()})
	}
	t := r.task
	w := taskExtension{Meta: r.Meta, ResultType: resultTypeComplete, TaskID: t.id, Status: t.status, StatusMessage: t.message,
		CreatedAt: wireTime(t.created), LastUpdatedAt: wireTime(t.updated), TTLMs: ms(t.ttl),
		PollIntervalMs: TaskPollInterval.Milliseconds(), Result: r.result, Error: failureOf(t),
		InputRequests: r.inputs}
	if r.form == formCreated {
		w.ResultType = resultTypeTask
	}
	return json.Marshal(w)
}

// taskPage is the result of tasks/list.
type taskPage struct {
	sdk.ResultBase
	tasks []taskState
	next  string
	shape shape
}

// MarshalJSON writes the page in its shape.
func (p *taskPage) MarshalJSON() ([]byte, error) {
	tasks := make([]json.RawMessage, 0, len(p.tasks))
	for _, t := range p.tasks {
		b, err := (&taskReply{task: t, shape: p.shape, form: formTask}).MarshalJSON()
		if err != nil {
			return nil, err
		}
		if p.shape == shapeExtension {
			// A listed task carries no resultType of its own.
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, err
			}
			delete(m, "resultType")
			if b, err = json.Marshal(m); err != nil {
				return nil, err
			}
		}
		tasks = append(tasks, b)
	}
	w := struct {
		Meta       sdk.Meta          `json:"_meta,omitempty"`
		ResultType string            `json:"resultType,omitempty"`
		Tasks      []json.RawMessage `json:"tasks"`
		NextCursor string            `json:"nextCursor,omitempty"`
	}{Meta: p.Meta, Tasks: tasks, NextCursor: p.next}
	if p.shape == shapeExtension {
		w.ResultType = resultTypeComplete
	}
	return json.Marshal(w)
}

// relatedTask is the _meta that ties a message to its task.
func relatedTask(id string) map[string]any {
	return map[string]any{"taskId": id}
}
