package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
	"github.com/askbridge/askbridge/store/redis/redistest"
)

// mcpTaskParams are the params of tasks/get and tasks/result.
type mcpTaskParams struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
}

// mcpTask is the task of tasks/get, in either shape.
type mcpTask struct {
	sdk.ResultBase
	TaskID string `json:"taskId"`
	Status string `json:"status"`
}

// taskMCPClient is an SDK client that knows tasks/get and tasks/result
// and declares the Tasks extension.
func taskMCPClient(t *testing.T) *sdk.Client {
	t.Helper()
	caps := &sdk.ClientCapabilities{}
	caps.AddExtension(mcp.ExtensionTasks, nil)
	c := sdk.NewClient(&sdk.Implementation{Name: "askbridge-test", Version: "v0"}, &sdk.ClientOptions{Capabilities: caps})
	if err := sdk.AddSendingCustomMethod[*mcpTaskParams, *mcpTask](c, mcp.MethodTasksGet); err != nil {
		t.Fatal(err)
	}
	if err := sdk.AddSendingCustomMethod[*mcpTaskParams, *sdk.CallToolResult](c, mcp.MethodTasksResult); err != nil {
		t.Fatal(err)
	}
	return c
}

// startTaskMCP runs `bridge mcp` against the bridge at addr and connects a
// task client to it; the process is returned to be killed.
func startTaskMCP(t *testing.T, addr string) (*sdk.ClientSession, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bridgeBinary(t), "mcp")
	cmd.Env = append(os.Environ(), "ASKBRIDGE_SERVER=http://"+addr)
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := taskMCPClient(t).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to bridge mcp: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, cmd
}

// TestMCPTaskAcrossRestart asks through `bridge mcp` as a task (the
// extension's protocol), then kills that process and `bridge serve`. On
// SQLite the bridge starts again on the same data; on Redis another
// instance on the same Redis takes over. A new `bridge mcp`, and a new
// session on /mcp (2025-11-25 Tasks), find the task still working, and
// tasks/result on each returns the answer a person then gives.
func TestMCPTaskAcrossRestart(t *testing.T) {
	t.Parallel()
	for _, store := range []string{"sqlite", "redis"} {
		t.Run(store, func(t *testing.T) {
			var redisURL string
			args := []string{"--data-dir", t.TempDir()}
			if store == "redis" {
				redisURL = "redis://" + redistest.Start(t).Addr + "/0"
				args = append(args, "--store", redisURL)
			}
			addr := freeAddr(t)
			serve := startServe(t, addr, nil, args...)
			first, firstCmd := startTaskMCP(t, addr)
			res, err := first.CallTool(context.Background(), toolParams(mcp.ToolAskUser, askArgs(prompt("Publish the docs?", "Yes", "No"))))
			if err != nil || len(res.Content) != 0 {
				t.Fatalf("ask_user as a task: %v %+v", err, res)
			}
			rel, _ := res.Meta["io.modelcontextprotocol/related-task"].(map[string]any)
			id, _ := rel["taskId"].(string)
			if q := questionNamed(t, client.New("http://"+addr, ""), "Publish the docs?"); q.ID != id || q.Status != client.StatusPending {
				t.Fatalf("task %q, question %+v", id, q)
			}

			_ = firstCmd.Process.Kill()
			serve.kill()
			if store == "redis" {
				// Another instance, with data of its own, on the same Redis.
				args = []string{"--data-dir", t.TempDir(), "--store", redisURL}
				addr = freeAddr(t)
			}
			startServe(t, addr, nil, args...)
			api := client.New("http://"+addr, "")

			second, _ := startTaskMCP(t, addr)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			overHTTP, err := taskMCPClient(t).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", MaxRetries: -1, HTTPClient: &http.Client{}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer overHTTP.Close()
			results := make(chan *sdk.CallToolResult, 2)
			for _, cs := range []*sdk.ClientSession{second, overHTTP} {
				got, err := sdk.CallCustomMethod[*mcpTaskParams, *mcpTask](ctx, cs, mcp.MethodTasksGet, &mcpTaskParams{TaskID: id})
				if err != nil || got.TaskID != id || got.Status != "working" {
					t.Fatalf("tasks/get after the restart: %+v, %v", got, err)
				}
				go func() {
					r, err := sdk.CallCustomMethod[*mcpTaskParams, *sdk.CallToolResult](ctx, cs, mcp.MethodTasksResult, &mcpTaskParams{TaskID: id})
					if err != nil {
						t.Errorf("tasks/result: %v", err)
					}
					results <- r
				}()
			}
			command(t, api, "/answer "+id+" 1")
			for range 2 {
				r := receive(t, results, 30*time.Second)
				if r == nil || r.IsError || !slices.Equal(outcome(t, r).Answers["Publish the docs?"].Selected, []string{"Yes"}) {
					t.Fatalf("tasks/result after the restart: %+v", r)
				}
			}
		})
	}
}
