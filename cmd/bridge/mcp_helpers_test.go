package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

// mcpConn is an MCP client session with the progress notifications it
// received, by progress token.
type mcpConn struct {
	cs       *sdk.ClientSession
	mu       sync.Mutex
	progress map[string][]string
}

func newMCPClient(c *mcpConn) *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "askbridge-test", Version: "v0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			c.mu.Lock()
			defer c.mu.Unlock()
			tok := toString(req.Params.ProgressToken)
			c.progress[tok] = append(c.progress[tok], req.Params.Message)
		},
	})
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// startMCPStdio runs `bridge mcp` against the bridge at addr, as an MCP
// client would, with progress every 300ms.
func startMCPStdio(t *testing.T, addr string, env ...string) *mcpConn {
	t.Helper()
	c, _ := startMCPArgs(t, "http://"+addr, []string{"--progress-every", "300ms"}, env...)
	return c
}

// startMCPArgs runs `bridge mcp` with args and env against the bridge at
// server, and returns the connection and the process.
func startMCPArgs(t *testing.T, server string, args []string, env ...string) (*mcpConn, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bridgeBinary(t), append([]string{"mcp"}, args...)...)
	cmd.Env = append(append(os.Environ(), "ASKBRIDGE_SERVER="+server), env...)
	cmd.Stderr = os.Stderr
	c, err := connectMCP(t, &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second})
	if err != nil {
		t.Fatalf("connect to bridge mcp: %v", err)
	}
	return c, cmd
}

// connectMCP opens an MCP client session over transport, recording the
// progress notifications it receives; the session closes with the test.
func connectMCP(t *testing.T, transport sdk.Transport) (*mcpConn, error) {
	t.Helper()
	c := &mcpConn{progress: map[string][]string{}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := newMCPClient(c).Connect(ctx, transport, nil)
	if err != nil {
		return nil, err
	}
	c.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	return c, nil
}

// call calls a tool and fails the test on a protocol error.
func (c *mcpConn) call(t *testing.T, ctx context.Context, tool string, args any, token any) *sdk.CallToolResult {
	t.Helper()
	p := &sdk.CallToolParams{Name: tool, Arguments: args}
	if token != nil {
		p.SetProgressToken(token)
	}
	res, err := c.cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res
}

// callAsync calls a tool in the background.
func (c *mcpConn) callAsync(t *testing.T, ctx context.Context, tool string, args any, token any) <-chan *sdk.CallToolResult {
	ch := make(chan *sdk.CallToolResult, 1)
	go func() {
		p := &sdk.CallToolParams{Name: tool, Arguments: args}
		if token != nil {
			p.SetProgressToken(token)
		}
		res, err := c.cs.CallTool(ctx, p)
		if err != nil {
			res = &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "protocol error: " + err.Error()}}}
		}
		ch <- res
	}()
	return ch
}

func (c *mcpConn) progressFor(tok string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.progress[tok]...)
}

// text returns the text of a tool result.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// outcome decodes a result's structured content.
func outcome(t *testing.T, res *sdk.CallToolResult) mcp.Outcome {
	t.Helper()
	var o mcp.Outcome
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return o
}

// receive waits for a tool result.
func receive(t *testing.T, ch <-chan *sdk.CallToolResult, within time.Duration) *sdk.CallToolResult {
	t.Helper()
	select {
	case res := <-ch:
		return res
	case <-time.After(within):
		t.Fatalf("no tool result within %s", within)
		return nil
	}
}

// questionNamed polls the agent's questions until one with the given
// question text (first prompt) exists, and returns it.
func questionNamed(t *testing.T, c *client.Client, question string) client.Result {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, r := range listQuestions(t, c) {
			if len(r.Questions) > 0 && r.Questions[0].Question == question {
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no question %q was asked", question)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func listQuestions(t *testing.T, c *client.Client) []client.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	qs, err := c.List(ctx, "", "")
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	return qs
}

// command sends a text command as a person on the cli channel.
func command(t *testing.T, c *client.Client, text string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := c.Command(ctx, "cli", text)
	if err != nil {
		t.Fatalf("command %q: %v", text, err)
	}
	if !res.OK {
		t.Fatalf("command %q refused: %s", text, res.Reply)
	}
}

// prompt builds one question of ask_user's input.
func prompt(question string, labels ...string) map[string]any {
	p := map[string]any{"question": question}
	var opts []map[string]any
	for _, l := range labels {
		opts = append(opts, map[string]any{"label": l})
	}
	if len(opts) > 0 {
		p["options"] = opts
	}
	return p
}

func askArgs(prompts ...map[string]any) map[string]any {
	return map[string]any{"questions": prompts}
}

func toolParams(tool string, args any) *sdk.CallToolParams {
	return &sdk.CallToolParams{Name: tool, Arguments: args}
}

// checkCancelledByClient cancels a waiting ask_user call and checks that
// its question ends cancelled with the MCP cancel reason.
func checkCancelledByClient(t *testing.T, conn *mcpConn, api *client.Client, question string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := conn.callAsync(t, ctx, "ask_user", askArgs(prompt(question, "Yes", "No")), nil)
	id := questionNamed(t, api, question).ID
	cancel()
	<-ch
	deadline := time.Now().Add(15 * time.Second)
	for {
		r, err := api.Get(context.Background(), id, 0)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == client.StatusCancelled {
			if r.Reason != mcp.CancelReason {
				t.Errorf("reason %q, want %q", r.Reason, mcp.CancelReason)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("question is %s (%q) after the call was cancelled, want cancelled", r.Status, r.Reason)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
