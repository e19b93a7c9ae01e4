package mcp_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

// httpTasks serves s over streamable HTTP until the test ends.
func httpTasks(t *testing.T, s *mcp.Server) string {
	t.Helper()
	hs := httptest.NewServer(s.HTTPHandler())
	t.Cleanup(func() { s.Drain(); hs.Close() })
	return hs.URL
}

// A 2025-11-25 task over HTTP, with the Go SDK's client: the call returns
// the task at once, tasks/get follows the question through a snooze and
// an escalation, the task outlives the session that made it (whose
// pending plain question is cancelled when it ends), and tasks/result
// waits for the answer and returns what ask_user would have.
func TestTasksOverHTTP(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			url := httpTasks(t, taskServer(t, br))
			ctx := context.Background()
			c := taskClient(t, 600000, false)
			cs := connectHTTP(t, c, url, keyBuilder)
			if _, ok := cs.InitializeResult().Capabilities.Extensions[mcp.ExtensionTasks]; !ok {
				t.Errorf("initialize declares no %s: %+v", mcp.ExtensionTasks, cs.InitializeResult().Capabilities)
			}

			id, res := callTask(t, cs, "Deploy the release?")
			if posted := br.posted(t, 1); id != posted {
				t.Fatalf("task %s, question posted %s: the task is not the question", id, posted)
			}
			if msg, _ := res.Meta["io.modelcontextprotocol/model-immediate-response"].(string); !strings.Contains(msg, "task "+id) {
				t.Errorf("immediate response %q does not name the task", msg)
			}
			got := getTask(t, cs, id)
			if got.Status != "working" || got.TTL == nil || *got.TTL != 600000 || got.PollInterval != 5000 || got.TTLMs != nil ||
				!strings.HasPrefix(got.StatusMessage, "Waiting for an answer (it times out at ") {
				t.Fatalf("tasks/get of a new task: %+v", got.wireTask)
			}

			// Ending the session cancels the plain question it left
			// pending, not the task's.
			plain, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolAskUser, Meta: sdk.Meta{plainCall: true},
				Arguments: map[string]any{"questions": []any{map[string]any{"question": "Which port?"}}, "wait": false}})
			if err != nil || plain.IsError {
				t.Fatalf("plain ask: %v %+v", err, plain)
			}
			plainID := outcomeOf(t, plain).ID
			_ = cs.Close()
			waitStatus(t, br.api(keyBuilder), plainID, client.StatusCancelled)
			if q, err := br.api(keyBuilder).Get(ctx, id, 0); err != nil || q.Status != client.StatusPending {
				t.Fatalf("the task's question after its session ended: %+v, %v", q, err)
			}

			cs = connectHTTP(t, c, url, keyBuilder)
			br.person(t, "/snooze "+id)
			got = getTask(t, cs, id)
			if got.Status != "working" || !strings.HasPrefix(got.StatusMessage, "Snoozed by ana; waiting for an answer (it times out at ") ||
				*got.TTL != (40*time.Minute).Milliseconds() {
				t.Fatalf("tasks/get after a snooze of 30m: %+v", got.wireTask)
			}
			if ok, err := br.b.Escalate(ctx, id, time.Now().Add(2*time.Minute)); !ok || err != nil {
				t.Fatalf("escalate: %v %v", ok, err)
			}
			if got = getTask(t, cs, id); !strings.HasPrefix(got.StatusMessage, "Escalated to oncall; waiting for an answer") || got.LastUpdatedAt <= got.CreatedAt {
				t.Fatalf("tasks/get after an escalation: %+v", got.wireTask)
			}

			done := make(chan *sdk.CallToolResult, 1)
			go func() {
				r, err := sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](ctx, cs, mcp.MethodTasksResult, &taskIDParams{TaskID: id})
				if err != nil {
					t.Errorf("tasks/result: %v", err)
				}
				done <- r
			}()
			select {
			case r := <-done:
				t.Fatalf("tasks/result returned before the answer: %+v", r)
			default:
			}
			br.person(t, "/answer "+id+" 1")
			r := <-done
			if r == nil || r.IsError || !strings.HasPrefix(textOf(r), "User answered your questions:") {
				t.Fatalf("tasks/result: %+v", r)
			}
			if a := outcomeOf(t, r).Answers["Deploy the release?"]; !slices.Equal(a.Selected, []string{"Yes"}) || a.AnsweredBy == nil || a.AnsweredBy.Name != "ana" {
				t.Fatalf("answer in tasks/result: %+v", a)
			}
			if rel, _ := r.Meta["io.modelcontextprotocol/related-task"].(map[string]any); rel["taskId"] != id {
				t.Errorf("tasks/result _meta: %v", r.Meta)
			}
			if got = getTask(t, cs, id); got.Status != "completed" || got.StatusMessage != "Answered by ana" || len(got.Result) != 0 {
				t.Fatalf("tasks/get of the answered task: %+v", got.wireTask)
			}
		})
	}
}

// plainCall in a tools/call's _meta keeps withTask from making it a task.
const plainCall = "test/plain"

// waitStatus waits until question id has status.
func waitStatus(t *testing.T, c *client.Client, id string, status client.Status) *client.Result {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		q, err := c.Get(context.Background(), id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if q.Status == status {
			return q
		}
		if time.Now().After(deadline) {
			t.Fatalf("question %s is %s (%s), want %s", id, q.Status, q.Reason, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Every mistake is a JSON-RPC error that names it, and changes nothing:
// an unknown task, another agent's, an empty id, a bad cursor, a task
// call of a tool without task support, bad arguments; cancelling twice
// and the result of a cancelled task. tasks/cancel itself cancels the
// question and edits its copy.
func TestTaskErrors(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			url := httpTasks(t, taskServer(t, br))
			ctx := context.Background()
			builder := connectHTTP(t, taskClient(t, 600000, false), url, keyBuilder)
			reviewer := connectHTTP(t, taskClient(t, 600000, false), url, keyReviewer)
			id, _ := callTask(t, builder, "Drop the old table?")
			br.posted(t, 1)

			for _, tc := range []struct {
				name   string
				cs     *sdk.ClientSession
				method string
				params any
				code   int64
				want   string
			}{
				{"unknown task", builder, mcp.MethodTasksGet, &taskIDParams{TaskID: "zzzzzz"}, jsonrpc.CodeInvalidParams, `task "zzzzzz" not found: no question of this agent has that id`},
				{"another agent's task", reviewer, mcp.MethodTasksGet, &taskIDParams{TaskID: id}, jsonrpc.CodeInvalidParams, `task "` + id + `" not found`},
				{"another agent's result", reviewer, mcp.MethodTasksResult, &taskIDParams{TaskID: id}, jsonrpc.CodeInvalidParams, `task "` + id + `" not found`},
				{"another agent's cancel", reviewer, mcp.MethodTasksCancel, &taskIDParams{TaskID: id}, jsonrpc.CodeInvalidParams, `task "` + id + `" not found`},
				{"no task id", builder, mcp.MethodTasksGet, &taskIDParams{}, jsonrpc.CodeInvalidParams, "taskId: give the id of a task"},
				{"bad cursor", builder, mcp.MethodTasksList, &taskListParams{Cursor: "page-2"}, jsonrpc.CodeInvalidParams, `cursor: "page-2" is not a cursor tasks/list returned`},
			} {
				t.Run(tc.name, func(t *testing.T) {
					var err error
					switch p := tc.params.(type) {
					case *taskIDParams:
						if tc.method == mcp.MethodTasksResult {
							_, err = sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](ctx, tc.cs, tc.method, p)
						} else {
							_, err = sdk.CallCustomMethod[*taskIDParams, *taskResult](ctx, tc.cs, tc.method, p)
						}
					case *taskListParams:
						_, err = sdk.CallCustomMethod[*taskListParams, *taskPage](ctx, tc.cs, tc.method, p)
					}
					rpcError(t, err, tc.code, tc.want)
				})
			}
			if q := waitStatus(t, br.api(keyBuilder), id, client.StatusPending); q.Status != client.StatusPending {
				t.Fatal("another agent's cancel changed the question")
			}

			t.Run("task call of get_answer", func(t *testing.T) {
				_, err := builder.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolGetAnswer, Arguments: map[string]any{"id": id}})
				rpcError(t, err, jsonrpc.CodeInvalidParams, "tool get_answer cannot be called as a task: only ask_user supports tasks")
			})
			t.Run("bad arguments", func(t *testing.T) {
				_, err := builder.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolAskUser, Arguments: map[string]any{"questions": []any{
					map[string]any{"question": "Which?", "options": []any{map[string]any{"label": "Only one"}}}}}})
				rpcError(t, err, jsonrpc.CodeInvalidParams, "ask_user: questions[0].options:")
				if qs, _ := br.api(keyBuilder).List(ctx, "", ""); len(qs) != 1 {
					t.Fatalf("%d questions after a refused task call, want 1", len(qs))
				}
			})

			t.Run("cancel", func(t *testing.T) {
				got, err := sdk.CallCustomMethod[*taskIDParams, *taskResult](ctx, builder, mcp.MethodTasksCancel, &taskIDParams{TaskID: id})
				if err != nil || got.TaskID != id || got.Status != "cancelled" || got.StatusMessage != "Cancelled: "+mcp.TaskCancelReason {
					t.Fatalf("tasks/cancel: %+v, %v", got, err)
				}
				if q := waitStatus(t, br.api(keyBuilder), id, client.StatusCancelled); q.Reason != mcp.TaskCancelReason {
					t.Fatalf("reason %q", q.Reason)
				}
				edited := func(c *brokertest.Channel) bool {
					return slices.ContainsFunc(c.Updates(), func(q *broker.Question) bool { return q.ID == id && q.Status == broker.StatusCancelled })
				}
				if !br.ch.WaitFor(10*time.Second, edited) {
					t.Fatal("the question's copy was not edited to show the cancel")
				}
				_, err = sdk.CallCustomMethod[*taskIDParams, *taskResult](ctx, builder, mcp.MethodTasksCancel, &taskIDParams{TaskID: id})
				rpcError(t, err, jsonrpc.CodeInvalidParams, "Cannot cancel task "+id+": it is already in terminal status 'cancelled'")
				_, err = sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](ctx, builder, mcp.MethodTasksResult, &taskIDParams{TaskID: id})
				rpcError(t, err, jsonrpc.CodeInvalidParams, "task "+id+" was cancelled (withdrawn by the agent): it has no result")
				if got := getTask(t, builder, id); got.Status != "cancelled" {
					t.Fatalf("tasks/get of a cancelled task: %+v", got.wireTask)
				}
			})
		})
	}
}

// A task whose question the bridge no longer keeps (purged after
// store.retention) has expired: tasks/get, tasks/result and tasks/cancel
// say so, unlike for a task that never was.
func TestTaskExpired(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			cs := connectHTTP(t, taskClient(t, 600000, false), httpTasks(t, taskServer(t, br)), keyBuilder)
			ctx := context.Background()
			id, _ := callTask(t, cs, "Rotate the keys?")
			br.posted(t, 1)
			br.person(t, "/answer "+id+" 2")
			waitStatus(t, br.api(keyBuilder), id, client.StatusAnswered)
			// Another instance reads the store, not the copy this one keeps
			// of the questions it resolved moments ago.
			br2 := br.another(t)
			cs = connectHTTP(t, taskClient(t, 600000, false), httpTasks(t, taskServer(t, br2)), keyBuilder)
			if n, err := br2.st.Purge(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
				t.Fatalf("purge: %d, %v", n, err)
			}
			want := "task " + id + " has expired: its question ended (answered at "
			_, err := sdk.CallCustomMethod[*taskIDParams, *taskResult](ctx, cs, mcp.MethodTasksGet, &taskIDParams{TaskID: id})
			rpcError(t, err, jsonrpc.CodeInvalidParams, want)
			_, err = sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](ctx, cs, mcp.MethodTasksResult, &taskIDParams{TaskID: id})
			rpcError(t, err, jsonrpc.CodeInvalidParams, want)
			_, err = sdk.CallCustomMethod[*taskIDParams, *taskResult](ctx, cs, mcp.MethodTasksCancel, &taskIDParams{TaskID: id})
			rpcError(t, err, jsonrpc.CodeInvalidParams, want)
		})
	}
}

// tasks/list pages through the agent's pending questions, newest first,
// with cursors; another agent's and ended questions are not listed.
func TestTasksList(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			url := httpTasks(t, taskServer(t, br))
			ctx := context.Background()
			builder := connectHTTP(t, taskClient(t, 600000, false), url, keyBuilder)
			reviewer := connectHTTP(t, taskClient(t, 600000, false), url, keyReviewer)
			const n = mcp.TasksPageSize + 3
			var ids []string
			for i := range n {
				id, _ := callTask(t, builder, "Question number "+string(rune('A'+i))+"?")
				ids = append(ids, id)
			}
			theirs, _ := callTask(t, reviewer, "Review it?")
			br.posted(t, n+1)
			br.person(t, "/answer "+ids[0]+" 1")
			waitStatus(t, br.api(keyBuilder), ids[0], client.StatusAnswered)

			list := func(cs *sdk.ClientSession, cursor string) *taskPage {
				t.Helper()
				p, err := sdk.CallCustomMethod[*taskListParams, *taskPage](ctx, cs, mcp.MethodTasksList, &taskListParams{Cursor: cursor})
				if err != nil {
					t.Fatalf("tasks/list: %v", err)
				}
				return p
			}
			first := list(builder, "")
			if len(first.Tasks) != mcp.TasksPageSize || first.NextCursor == "" {
				t.Fatalf("first page: %d tasks, cursor %q", len(first.Tasks), first.NextCursor)
			}
			second := list(builder, first.NextCursor)
			if len(second.Tasks) != n-1-mcp.TasksPageSize || second.NextCursor != "" {
				t.Fatalf("second page: %d tasks, cursor %q", len(second.Tasks), second.NextCursor)
			}
			var listed []string
			for _, tk := range append(first.Tasks, second.Tasks...) {
				if tk.Status != "working" || tk.TTL == nil {
					t.Errorf("listed task %+v", tk)
				}
				listed = append(listed, tk.TaskID)
			}
			want := slices.Clone(ids[1:])
			slices.Reverse(want) // newest first
			if !slices.Equal(listed, want) {
				t.Fatalf("listed %v, want the pending ones newest first %v", listed, want)
			}
			if p := list(reviewer, ""); len(p.Tasks) != 1 || p.Tasks[0].TaskID != theirs {
				t.Fatalf("the reviewer's list: %+v", p.Tasks)
			}
		})
	}
}

// With the extension (protocol 2026-07-28, on the connection `bridge mcp`
// serves), a client that declares it gets ask_user as a task whose
// tasks/get carries the result once completed; tasks/update and
// tasks/cancel acknowledge. A client that does not declare it gets plain
// calls, and -32021 from the task methods.
func TestTasksExtension(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			ctx := context.Background()
			cs := connectStdio(t, taskServer(t, br), taskClient(t, 0, true))
			if cs.InitializeResult().ProtocolVersion < "2026-07-28" {
				t.Fatalf("negotiated %s, want the extension's protocol", cs.InitializeResult().ProtocolVersion)
			}
			id, _ := callTask(t, cs, "Merge the branch?")
			if posted := br.posted(t, 1); id != posted {
				t.Fatalf("task %s, question %s", id, posted)
			}
			got := getTask(t, cs, id)
			if got.ResultType != "complete" || got.Status != "working" || got.TTLMs == nil || *got.TTLMs != broker.DefaultTimeout.Milliseconds() ||
				got.PollIntervalMs != 5000 || got.TTL != nil || len(got.Result) != 0 {
				t.Fatalf("tasks/get: %+v", got.wireTask)
			}
			ack, err := sdk.CallCustomMethod[*taskUpdateParams, *taskResult](ctx, cs, mcp.MethodTasksUpdate,
				&taskUpdateParams{TaskID: id, InputResponses: map[string]any{"name": map[string]any{"action": "accept"}}})
			if err != nil || ack.ResultType != "complete" || ack.TaskID != "" {
				t.Fatalf("tasks/update: %+v, %v", ack, err)
			}
			br.person(t, "/answer "+id+" 2")
			waitStatus(t, br.api(keyBuilder), id, client.StatusAnswered)
			got = getTask(t, cs, id)
			if got.Status != "completed" || !strings.Contains(string(got.Result), `"selected":["No"]`) || !strings.Contains(string(got.Result), "User answered your questions:") {
				t.Fatalf("tasks/get of the answered task: %+v %s", got.wireTask, got.Result)
			}

			other, _ := callTask(t, cs, "Tag the release?")
			ack, err = sdk.CallCustomMethod[*taskIDParams, *taskResult](ctx, cs, mcp.MethodTasksCancel, &taskIDParams{TaskID: other})
			if err != nil || ack.ResultType != "complete" || ack.TaskID != "" {
				t.Fatalf("tasks/cancel: %+v, %v", ack, err)
			}
			waitStatus(t, br.api(keyBuilder), other, client.StatusCancelled)

			plain := connectStdio(t, taskServer(t, br), taskClient(t, 0, false))
			_, err = sdk.CallCustomMethod[*taskIDParams, *taskResult](ctx, plain, mcp.MethodTasksGet, &taskIDParams{TaskID: id})
			rpcError(t, err, sdk.CodeMissingRequiredClientCapabilities, "Missing required client capability: declare the extension io.modelcontextprotocol/tasks")
			res, err := plain.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolAskUser, Arguments: map[string]any{
				"questions": []any{map[string]any{"question": "Which port?"}}, "wait": false}})
			if err != nil || res.IsError || !strings.HasPrefix(textOf(res), "Question ") || !strings.Contains(textOf(res), "is waiting for an answer") {
				t.Fatalf("plain call of a client without the extension: %v %+v", err, res)
			}
		})
	}
}

// A task survives its server: after the server and its bridge stop, a new
// server on another bridge over the same data (a restart on SQLite,
// another instance on Redis) finds it and returns its answer.
func TestTaskSurvivesTheServer(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			first := connectStdio(t, taskServer(t, br), taskClient(t, 0, true))
			id, _ := callTask(t, first, "Ship on Friday?")
			br.posted(t, 1)
			_ = first.Close()

			br2 := br.another(t)
			cs := connectStdio(t, taskServer(t, br2), taskClient(t, 0, true))
			if got := getTask(t, cs, id); got.Status != "working" {
				t.Fatalf("tasks/get after the restart: %+v", got.wireTask)
			}
			done := make(chan *sdk.CallToolResult, 1)
			go func() {
				r, err := sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](context.Background(), cs, mcp.MethodTasksResult, &taskIDParams{TaskID: id})
				if err != nil {
					t.Errorf("tasks/result: %v", err)
				}
				done <- r
			}()
			reply := br2.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana", Text: "/answer " + id + " 1"})
			if !reply.OK {
				t.Fatalf("answer: %s", reply.Text)
			}
			if r := <-done; r == nil || outcomeOf(t, r).Status != client.StatusAnswered || !slices.Equal(outcomeOf(t, r).Answers["Ship on Friday?"].Selected, []string{"Yes"}) {
				t.Fatalf("tasks/result after the restart: %+v", r)
			}
		})
	}
}
