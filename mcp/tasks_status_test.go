package mcp_test

import (
	"context"
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
