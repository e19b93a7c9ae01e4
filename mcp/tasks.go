package mcp

// MCP Tasks for ask_user: a question asked as a task. The Go SDK has no
// Tasks API yet; the files tasks*.go stand in for it, on what the SDK
// does have (custom methods, receiving middleware, the Extensions
// capability), and go when it gains one.
//
// The task is the bridge's question: its id is the question's id and its
// state is read from the bridge through the Asker on every request, so a
// task outlives the MCP session that made it, a restart of `bridge mcp`
// and of the bridge, and is the same on every instance. Only the calling
// agent's questions are visible, as on the HTTP API.
//
// Two shapes are served, chosen by the protocol version of each request:
//   - 2025-11-25 (experimental Tasks of that specification): the client
//     sends params.task on tools/call and gets {"task": {…}}; tasks/get,
//     tasks/result, tasks/list, tasks/cancel; ttl and pollInterval;
//     notifications/tasks/status on a connection that can carry them.
//   - 2026-07-28 with the io.modelcontextprotocol/tasks extension: a
//     client that declares the extension in its request's capabilities
//     gets {"resultType": "task", …} for ask_user; tasks/get carries the
//     result once completed; tasks/update and tasks/cancel acknowledge;
//     ttlMs and pollIntervalMs.

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionTasks is the identifier of the MCP Tasks extension.
const ExtensionTasks = "io.modelcontextprotocol/tasks"

// The methods of Tasks.
const (
	MethodTasksGet    = "tasks/get"
	MethodTasksResult = "tasks/result"
	MethodTasksList   = "tasks/list"
	MethodTasksCancel = "tasks/cancel"
	MethodTasksUpdate = "tasks/update"
	// NotificationTaskStatus is the 2025-11-25 status notification.
	NotificationTaskStatus = "notifications/tasks/status"
)

// Keys of _meta that Tasks uses.
const (
	// metaRelatedTask names the task a message belongs to.
	metaRelatedTask = "io.modelcontextprotocol/related-task"
	// metaImmediateResponse is the text a host may hand the model at once
	// when a tools/call becomes a task (2025-11-25, provisional).
	metaImmediateResponse = "io.modelcontextprotocol/model-immediate-response"
)

// TaskPollInterval is the polling interval a task suggests.
const TaskPollInterval = 5 * time.Second

// TasksPageSize is how many tasks one page of tasks/list holds.
const TasksPageSize = 20

// version2026 is the first protocol version whose Tasks are the
// extension's.
const version2026 = "2026-07-28"

// shape is the wire form of Tasks a request speaks.
type shape int

const (
	// shape2025 is the Tasks of the 2025-11-25 specification.
	shape2025 shape = iota
	// shapeExtension is the io.modelcontextprotocol/tasks extension.
	shapeExtension
)

func shapeOf(version string) shape {
	if version >= version2026 {
		return shapeExtension
	}
	return shape2025
}

// Headers that carry, inside the server, what a request's JSON says about
// Tasks where the SDK drops it: the SDK's tools/call params have no task
// field. The HTTP handler and the stdio connection (tasks_stream.go) set
// them; a client's own are removed.
const (
	// taskHeader holds the params.task of a task-augmented tools/call.
	taskHeader = "X-Askbridge-Mcp-Task"
	// streamHeader names the stdio connection a call came on, which can
	// carry status notifications.
	streamHeader = "X-Askbridge-Mcp-Stream"
)

// taskCall is what a task method knows of its request besides its params:
// the HTTP header (the agent's key; nil on stdio), the protocol shape,
// whether the client declared the extension, and for a tools/call its
// params.task and the stdio connection it came on.
type taskCall struct {
	header   http.Header
	shape    shape
	declared bool
	param    string
	stream   string
	// tap names the response of an HTTP request that can carry status
	// notifications (tasks_tap.go).
	tap string
}

// taskParams are the params of the task methods; the middleware hands
// them their request's taskCall before the SDK calls the method.
type taskParams interface {
	bindCall(taskCall)
}

// taskIDParams are the params of tasks/get, tasks/result and tasks/cancel.
type taskIDParams struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
	call   taskCall
}

func (p *taskIDParams) bindCall(c taskCall) { p.call = c }

// taskListParams are the params of tasks/list.
type taskListParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
	call   taskCall
}

func (p *taskListParams) bindCall(c taskCall) { p.call = c }

// taskUpdateParams are the params of the extension's tasks/update.
type taskUpdateParams struct {
	sdk.ParamsBase
	TaskID         string               `json:"taskId"`
	InputResponses sdk.InputResponseMap `json:"inputResponses,omitempty"`
	call           taskCall
}

func (p *taskUpdateParams) bindCall(c taskCall) { p.call = c }

// requestInfo is what the SDK's requests tell of their protocol version
// and client (sdk.ServerRequest has both).
type requestInfo interface {
	ProtocolVersion() string
	ClientCapabilities() *sdk.ClientCapabilities
}

// callOf is the taskCall of req.
func callOf(req sdk.Request) taskCall {
	var c taskCall
	if ex := req.GetExtra(); ex != nil && ex.Header != nil {
		c.header = ex.Header
		c.param, c.stream, c.tap = ex.Header.Get(taskHeader), ex.Header.Get(streamHeader), ex.Header.Get(tapHeader)
		if c.stream != "" {
			// A stdio request: its header only says it is a task call.
			c.header = nil
		}
	}
	if ri, ok := req.(requestInfo); ok {
		c.shape = shapeOf(ri.ProtocolVersion())
		if caps := ri.ClientCapabilities(); caps != nil {
			_, c.declared = caps.Extensions[ExtensionTasks]
		}
	}
	return c
}

// serverCapabilities are the capabilities New starts from: the Tasks
// extension (initialize adds the 2025-11-25 tasks capability:
// initializeWithTasks; the SDK adds tools). Logging, which the SDK
// declares when given none, is left out: the server sends no log
// messages, and 2026-07-28 deprecates the feature.
func serverCapabilities() *sdk.ServerCapabilities {
	c := &sdk.ServerCapabilities{}
	c.AddExtension(ExtensionTasks, nil)
	return c
}

// addTasks registers the task methods and the middleware that makes
// ask_user's task-augmented calls tasks.
func (s *Server) addTasks() error {
	if err := sdk.AddReceivingCustomMethod(s.sdk, MethodTasksGet, s.taskGet); err != nil {
		return err
	}
	if err := sdk.AddReceivingCustomMethod(s.sdk, MethodTasksResult, s.taskResult); err != nil {
		return err
	}
	if err := sdk.AddReceivingCustomMethod(s.sdk, MethodTasksList, s.taskList); err != nil {
		return err
	}
	if err := sdk.AddReceivingCustomMethod(s.sdk, MethodTasksCancel, s.taskCancel); err != nil {
		return err
	}
	if err := sdk.AddReceivingCustomMethod(s.sdk, MethodTasksUpdate, s.taskUpdate); err != nil {
		return err
	}
	s.sdk.AddReceivingMiddleware(s.tasksMiddleware)
	return nil
}

// tasksMiddleware declares the 2025-11-25 tasks capability in initialize
// and ask_user's task support in tools/list, turns ask_user's
// task-augmented calls into tasks, and gives the task methods their
// request's taskCall.
func (s *Server) tasksMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "initialize":
			res, err := next(ctx, method, req)
			if ir, ok := res.(*sdk.InitializeResult); ok && err == nil {
				return &initializeWithTasks{ir}, nil
			}
			return res, err
		case "tools/list":
			res, err := next(ctx, method, req)
			if lr, ok := res.(*sdk.ListToolsResult); ok && err == nil {
				return &toolsWithTasks{lr}, nil
			}
			return res, err
		case "tools/call":
			if r, ok := req.(*sdk.CallToolRequest); ok {
				if res, done, err := s.taskCallTool(ctx, r); done {
					return res, err
				}
			}
		default:
			if p, ok := req.GetParams().(taskParams); ok {
				p.bindCall(callOf(req))
			}
		}
		return next(ctx, method, req)
	}
}

// taskError is a JSON-RPC error of a task method.
func taskError(code int64, msg string) error {
	return &jsonrpc.Error{Code: code, Message: msg}
}

// missingExtension is the extension's error for a 2026-07-28 request of a
// client that did not declare it.
func missingExtension() error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{ExtensionTasks: map[string]any{}}}})
	return &jsonrpc.Error{Code: sdk.CodeMissingRequiredClientCapabilities,
		Message: "Missing required client capability: declare the extension " + ExtensionTasks + " in the request's capabilities to use tasks", Data: data}
}

// initializeWithTasks is the initialize result with the 2025-11-25 tasks
// capability, which the SDK's ServerCapabilities has no field for.
type initializeWithTasks struct{ *sdk.InitializeResult }

// tasksCapability is what this server supports of 2025-11-25 Tasks.
var tasksCapability = map[string]any{
	"list":     map[string]any{},
	"cancel":   map[string]any{},
	"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}},
}

func (r *initializeWithTasks) MarshalJSON() ([]byte, error) {
	return withField(r.InitializeResult, func(m map[string]json.RawMessage) error {
		return setIn(m, "capabilities", func(caps map[string]json.RawMessage) error {
			b, err := json.Marshal(tasksCapability)
			caps["tasks"] = b
			return err
		})
	})
}

// toolsWithTasks is the tools/list result with ask_user's
// execution.taskSupport, which the SDK's Tool has no field for.
type toolsWithTasks struct{ *sdk.ListToolsResult }

func (r *toolsWithTasks) MarshalJSON() ([]byte, error) {
	return withField(r.ListToolsResult, func(m map[string]json.RawMessage) error {
		var tools []map[string]json.RawMessage
		if err := json.Unmarshal(m["tools"], &tools); err != nil {
			return err
		}
		for _, t := range tools {
			if string(t["name"]) == `"`+ToolAskUser+`"` {
				t["execution"] = json.RawMessage(`{"taskSupport":"optional"}`)
			}
		}
		b, err := json.Marshal(tools)
		m["tools"] = b
		return err
	})
}

// withField marshals v as a JSON object that edit changes.
func withField(v any, edit func(map[string]json.RawMessage) error) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if err := edit(m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// setIn edits the object at key of m, making it when absent.
func setIn(m map[string]json.RawMessage, key string, edit func(map[string]json.RawMessage) error) error {
	inner := map[string]json.RawMessage{}
	if raw, ok := m[key]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &inner); err != nil {
			return err
		}
	}
	if err := edit(inner); err != nil {
		return err
	}
	b, err := json.Marshal(inner)
	m[key] = b
	return err
}
