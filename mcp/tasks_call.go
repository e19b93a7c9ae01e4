package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// taskCallPrefix starts the tool_call_id of every question asked as a
// task, so that any server, in any process, tells a task's question from
// one whose call waits: a task's question is never tied to an MCP session
// (leases.hold).
const taskCallPrefix = "task-"

// isTaskQuestion reports whether r was asked as a task.
func isTaskQuestion(r *client.Result) bool {
	return r != nil && strings.HasPrefix(r.ToolCallID, taskCallPrefix)
}

// taskCallTool answers a tools/call that asks for a task: one with
// params.task (2025-11-25), or of a client that declared the extension
// (2026-07-28). done reports whether it answered; a call it leaves goes on
// as a plain call.
//
// ask_user then stores its question and returns the task at once,
// without waiting for an answer and without a lease: the question lives
// until its timeout, whatever becomes of the session. A 2025-11-25 task
// call of another tool is refused; that specification suggests -32601,
// which the SDK rewrites as "method not found: tools/call" whatever the
// message, so it is -32602 with the reason. An extension client's is a
// plain call.
func (s *Server) taskCallTool(ctx context.Context, req *sdk.CallToolRequest) (sdk.Result, bool, error) {
	c := callOf(req)
	switch {
	case c.param != "" && c.shape == shape2025:
	case c.shape == shapeExtension && c.declared:
	default:
		return nil, false, nil
	}
	if req.Params.Name != ToolAskUser {
		if c.shape == shapeExtension {
			return nil, false, nil
		}
		return nil, true, taskError(jsonrpc.CodeInvalidParams, fmt.Sprintf("tool %s cannot be called as a task: only %s supports tasks (execution.taskSupport in tools/list)", req.Params.Name, ToolAskUser))
	}
	if s.cfg.NoUserQuestion {
		// Nothing is asked, so there is no task: the result is at hand.
		return questionsOffResult(), true, nil
	}
	ttl, err := taskTTL(c.param)
	if err != nil {
		return nil, true, taskError(jsonrpc.CodeInvalidParams, err.Error())
	}
	a, res, err := s.askTask(ctx, req, c, ttl)
	if err != nil {
		return nil, true, err
	}
	if res.Terminal() {
		// Ended as it was asked (nobody can be asked): a task begins
		// working, so this one is no task; its result is at hand.
		return s.result(ctx, a, res), true, nil
	}
	if c.shape == shape2025 && c.stream != "" {
		s.watchTask(c.stream, a, res)
	}
	if c.shape == shapeExtension {
		var in AskInput
		if decodeArgs(req.Params.Arguments, &in) == nil {
			s.offerTaskForm(req, &in, res.ID)
		}
	}
	reply := &taskReply{task: taskOf(res, nil), shape: c.shape, form: formCreated}
	reply.Meta = sdk.Meta{
		metaRelatedTask: relatedTask(res.ID),
		metaImmediateResponse: fmt.Sprintf("Question %s was sent to the people as task %s. Its answer will be the task's result; meanwhile go on with work that does not depend on it.",
			res.ID, res.ID),
	}
	return reply, true, nil
}

// taskTTL reads the ttl of a 2025-11-25 params.task, in milliseconds;
// zero when it names none.
func taskTTL(param string) (time.Duration, error) {
	if param == "" {
		return 0, nil
	}
	var p struct {
		TTL *float64 `json:"ttl"`
	}
	if err := json.Unmarshal([]byte(param), &p); err != nil {
		return 0, fmt.Errorf(`task: must be an object such as {"ttl": 600000}, got %s`, param)
	}
	if p.TTL == nil {
		return 0, nil
	}
	if *p.TTL <= 0 || math.IsInf(*p.TTL, 0) || math.IsNaN(*p.TTL) {
		return 0, fmt.Errorf("task.ttl: must be a positive number of milliseconds, got %v", *p.TTL)
	}
	return time.Duration(min(*p.TTL, float64(broker.MaxTimeout.Milliseconds()))) * time.Millisecond, nil
}

// askTask asks ask_user's question of req for a task: the question's
// timeout is the call's, else the task's ttl (within the bridge's 10 s to
// 7 d), else the route's. Bad arguments are a JSON-RPC error that names
// the field, and nothing is asked.
func (s *Server) askTask(ctx context.Context, req *sdk.CallToolRequest, c taskCall, ttl time.Duration) (Asker, *client.Result, error) {
	var in AskInput
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return nil, nil, taskError(jsonrpc.CodeInvalidParams, ToolAskUser+": "+err.Error())
	}
	var lease time.Duration
	if in.Lease != "" {
		var err error
		if lease, err = in.lease(0); err != nil {
			return nil, nil, taskError(jsonrpc.CodeInvalidParams, ToolAskUser+": "+err.Error())
		}
	}
	a, err := s.cfg.Asker(c.header)
	if err != nil {
		return nil, nil, taskError(jsonrpc.CodeInternalError, err.Error())
	}
	session, call := s.taskIDs(req, c)
	q := in.question(session, call)
	if q.Timeout == "" && ttl > 0 {
		ttl = min(max(ttl, broker.MinTimeout), broker.MaxTimeout)
		q.Timeout = fmt.Sprintf("%ds", int64(math.Ceil(ttl.Seconds())))
	}
	if lease > 0 {
		q.Lease = lease.String()
	}
	// Pending mode: the bridge answers once the question is stored, so the
	// task exists (tasks/get finds it) before it is returned.
	q.Wait = "0s"
	res, err := s.submit(ctx, a, q, true)
	if isConflict(err) && strings.HasPrefix(call, taskCallPrefix+"progress-") {
		// The progress token named another question before: this is a
		// new one, not a retry.
		q.ToolCallID = taskCallPrefix + "call-" + randomHex(8)
		res, err = s.submit(ctx, a, q, true)
	}
	if err != nil {
		msg := ToolAskUser + ": " + bridgeError(err, len(in.Questions)).Error()
		var ae *client.APIError
		if errors.As(err, &ae) && ae.StatusCode == http.StatusBadRequest {
			return nil, nil, taskError(jsonrpc.CodeInvalidParams, msg)
		}
		return nil, nil, taskError(jsonrpc.CodeInternalError, msg)
	}
	s.log.Info("mcp question asked as a task", "question_id", res.ID, "session_id", session, "tool_call_id", q.ToolCallID)
	if lease > 0 {
		s.leases.hold(a, "", res, lease)
	}
	if res.CreatedAt.IsZero() {
		// The pending answer of an ask names the question, not when it
		// was made: read it whole for the task's times.
		if full, err := s.getOnce(ctx, a, res.ID); err == nil {
			res = full
		} else {
			res.CreatedAt = time.Now()
		}
	}
	return a, res, nil
}

// taskIDs are the session and tool-call ids of a task's question: those
// of a plain call with taskCallPrefix, so that a call sent again with the
// same progress token finds the same question. On stdio, whose requests
// carry a header only to say they are task calls, the token names the
// question as it does for a plain call there.
func (s *Server) taskIDs(req *sdk.CallToolRequest, c taskCall) (session, call string) {
	r := *req
	if c.stream != "" {
		r.Extra = nil
	}
	session, call = s.ids(&r)
	return session, taskCallPrefix + call
}

// liftTask gives a POST whose body is a tools/call with params.task that
// param in taskHeader, which the SDK's request keeps (its params drop
// it), and returns the body it read. The body is left as it was for the
// SDK; one over the SDK's limit is not read further (the SDK refuses it).
func liftTask(r *http.Request) []byte {
	body, err := io.ReadAll(io.LimitReader(r.Body, sdk.DefaultMaxRequestBodyBytes+1))
	rest := io.Reader(r.Body)
	if err != nil {
		rest = failedReader{err}
	}
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), rest), r.Body}
	if err != nil || !bytes.Contains(body, []byte(`"task"`)) {
		return body
	}
	if param, ok := taskParam(body); ok {
		r.Header.Set(taskHeader, param)
	}
	return body
}

type readCloser struct {
	io.Reader
	io.Closer
}

// taskParam returns the params.task of msg, one JSON-RPC tools/call
// request, as compact JSON.
func taskParam(msg []byte) (string, bool) {
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Method != "tools/call" {
		return "", false
	}
	return paramsTask(m.Params)
}

// paramsTask returns the task of a tools/call's params, as compact JSON.
func paramsTask(params []byte) (string, bool) {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	if json.Unmarshal(params, &p) != nil {
		return "", false
	}
	t := bytes.TrimSpace(p.Task)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return "", false
	}
	var b bytes.Buffer
	if json.Compact(&b, t) != nil {
		return "", false
	}
	return b.String(), true
}
