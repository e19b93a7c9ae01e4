package mcp_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

// A task whose question the bridge could not deliver to anyone (every
// post failed for good after the task was made) is failed: in the
// 2025-11-25 shape tasks/result returns the error result; in the
// extension's, tasks/get carries the error.
func TestTaskFailed(t *testing.T) {
	for _, ext := range []bool{false, true} {
		name := "2025-11-25"
		if ext {
			name = "extension"
		}
		t.Run(name, func(t *testing.T) {
			br := startTaskBridge(t, "sqlite")
			br.failDoomed()
			ttl, version := int64(600000), "2025-11-25"
			if ext {
				ttl, version = 0, ""
			}
			cs := connectStdioAt(t, taskServer(t, br), taskClient(t, ttl, ext), version)
			ctx := context.Background()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: mcp.ToolAskUser, Arguments: map[string]any{
				"questions": []any{map[string]any{"question": "Rotate the keys?"}}, "route": "doomed"}})
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := res.Meta["io.modelcontextprotocol/related-task"].(map[string]any)
			id, _ := rel["taskId"].(string)
			if id == "" {
				t.Fatalf("no task: %+v", res)
			}
			if got := getTask(t, cs, id); got.Status != "working" {
				t.Fatalf("task before the post failed: %+v", got.wireTask)
			}
			waitStatus(t, br.api(keyBuilder), id, client.StatusUnsupported)
			got := getTask(t, cs, id)
			if got.Status != "failed" || !strings.HasPrefix(got.StatusMessage, "Not asked: ") || !strings.Contains(got.StatusMessage, "chat not found") {
				t.Fatalf("tasks/get of the undeliverable question: %+v", got.wireTask)
			}
			if ext {
				if got.Error == nil || got.Error.Code != jsonrpc.CodeInternalError || got.Error.Message != got.StatusMessage || len(got.Result) != 0 {
					t.Fatalf("failed task's error: %+v result %s", got.Error, got.Result)
				}
				return
			}
			out, err := sdk.CallCustomMethod[*taskIDParams, *sdk.CallToolResult](ctx, cs, mcp.MethodTasksResult, &taskIDParams{TaskID: id})
			if err != nil || !out.IsError || outcomeOf(t, out).Status != client.StatusUnsupported {
				t.Fatalf("tasks/result of the failed task: %v %+v", err, out)
			}
		})
	}
}

// With --race-local, an extension task whose client takes forms is
// input_required while its question is pending: tasks/get carries the
// form in inputRequests, and the response sent with tasks/update settles
// it (accepted: answered at the terminal); a dismissed form leaves the
// task working for chat.
func TestTaskInputRequired(t *testing.T) {
	for _, store := range bothStores {
		t.Run(store, func(t *testing.T) {
			br := startTaskBridge(t, store)
			ctx := context.Background()
			c := taskClientWith(t, 0, true, &sdk.ClientOptions{ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return nil, errors.New("a task's form comes in tasks/get, not as a request")
			}})
			cs := connectStdio(t, raceTaskServer(t, br), c)
			id, _ := callTask(t, cs, "Deploy the release?")
			got := getTask(t, cs, id)
			form, ok := got.InputRequests["askbridge-local-form"]
			if got.Status != "input_required" || !ok || form.Method != "elicitation/create" ||
				!strings.Contains(string(form.Params), `"oneOf":[{"const":"Yes","title":"Yes"},{"const":"No","title":"No"}]`) {
				t.Fatalf("tasks/get of a raced task: %+v %s", got.wireTask, form.Params)
			}
			update := func(id, action string, content map[string]any) {
				t.Helper()
				ack, err := sdk.CallCustomMethod[*taskUpdateParams, *taskResult](ctx, cs, mcp.MethodTasksUpdate, &taskUpdateParams{TaskID: id,
					InputResponses: map[string]any{"askbridge-local-form": map[string]any{"action": action, "content": content}}})
				if err != nil || ack.ResultType != "complete" {
					t.Fatalf("tasks/update: %+v %v", ack, err)
				}
			}
			update(id, "accept", map[string]any{"q1": "No"})
			got = getTask(t, cs, id)
			if got.Status != "completed" || len(got.InputRequests) != 0 || !strings.Contains(string(got.Result), `"selected":["No"]`) ||
				!strings.Contains(string(got.Result), `"channel":"terminal"`) {
				t.Fatalf("tasks/get after the form was answered: %+v %s", got.wireTask, got.Result)
			}
			if q, _ := br.api(keyBuilder).Get(ctx, id, 0); q.Status != client.StatusAnswered || q.AnsweredBy == nil || q.AnsweredBy.Channel != "terminal" {
				t.Fatalf("the bridge has %+v", q)
			}

			other, _ := callTask(t, cs, "Tag the release?")
			if got := getTask(t, cs, other); got.Status != "input_required" {
				t.Fatalf("second task: %+v", got.wireTask)
			}
			update(other, "cancel", nil)
			if got := getTask(t, cs, other); got.Status != "working" || len(got.InputRequests) != 0 {
				t.Fatalf("tasks/get after the form was dismissed: %+v", got.wireTask)
			}
			br.person(t, "/answer "+other+" 1")
			waitStatus(t, br.api(keyBuilder), other, client.StatusAnswered)
			if got := getTask(t, cs, other); got.Status != "completed" || !strings.Contains(string(got.Result), `"name":"ana"`) {
				t.Fatalf("tasks/get after chat answered: %+v %s", got.wireTask, got.Result)
			}
		})
	}
}
