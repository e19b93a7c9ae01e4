package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/testutil"
)

// channelNote is a notification of Claude Code's channel protocol that
// `bridge channel` sent.
type channelNote struct {
	Method string
	Params struct {
		RequestID string            `json:"request_id"`
		Behavior  string            `json:"behavior"`
		Content   string            `json:"content"`
		Meta      map[string]string `json:"meta"`
	}
}

// channelPeer is Claude Code's side of a running `bridge channel`: an MCP
// client session of the Go SDK over the process's standard input and
// output, whose transport also writes permission prompts as raw JSON-RPC
// lines, and keeps the channel notifications that the SDK would drop.
type channelPeer struct {
	t       *testing.T
	cs      *sdk.ClientSession
	cmd     *exec.Cmd
	stdin   *lockedWriter
	stderr  *testutil.Buffer
	exited  chan struct{}
	session string

	mu    sync.Mutex
	notes []channelNote
}

// lockedWriter makes each Write whole, so that a raw line never
// interleaves with the SDK's messages.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// peerTransport connects the SDK client over the process's pipes.
type peerTransport struct {
	p      *channelPeer
	stdout io.ReadCloser
}

func (tr *peerTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	inner, err := (&sdk.IOTransport{Reader: tr.stdout, Writer: tr.p.stdin}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &peerConn{Connection: inner, p: tr.p}, nil
}

// peerConn hands the SDK everything but the channel notifications.
type peerConn struct {
	sdk.Connection
	p *channelPeer
}

func (c *peerConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.IsCall() || !strings.HasPrefix(req.Method, "notifications/claude/channel") {
			return msg, nil
		}
		n := channelNote{Method: req.Method}
		if err := json.Unmarshal(req.Params, &n.Params); err != nil {
			c.p.t.Errorf("%s params %s: %v", req.Method, req.Params, err)
		}
		c.p.mu.Lock()
		c.p.notes = append(c.p.notes, n)
		c.p.mu.Unlock()
	}
}

// startChannel runs `bridge channel ARGS…` against the bridge at addr,
// with the questions in session, and connects to it as Claude Code does.
func startChannel(t *testing.T, addr, session string, args ...string) *channelPeer {
	t.Helper()
	cmd := exec.Command(bridgeBinary(t), append([]string{"channel", "--session", session}, args...)...)
	cmd.Env = append(os.Environ(), "ASKBRIDGE_SERVER=http://"+addr)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &channelPeer{t: t, cmd: cmd, stdin: &lockedWriter{w: in}, stderr: &testutil.Buffer{}, exited: make(chan struct{}), session: session}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
		if t.Failed() {
			t.Logf("bridge channel stderr:\n%s", p.stderr.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "claude-code", Version: "2.1.81"}, nil)
	cs, err := c.Connect(ctx, &peerTransport{p: p, stdout: out}, nil)
	if err != nil {
		t.Fatalf("connect to bridge channel: %v\n%s", err, p.stderr.String())
	}
	p.cs = cs
	return p
}

// prompt sends a permission prompt as Claude Code writes it.
func (p *channelPeer) prompt(requestID, tool, description, preview string) {
	p.t.Helper()
	p.raw(map[string]any{"request_id": requestID, "tool_name": tool, "description": description, "input_preview": preview})
}

// raw sends a permission_request notification with any params.
func (p *channelPeer) raw(params any) {
	p.t.Helper()
	line, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/claude/channel/permission_request", "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.stdin.Write(append(line, '\n')); err != nil {
		p.t.Fatalf("write the prompt: %v", err)
	}
}

// notesFor returns the notifications sent about a request, in order.
func (p *channelPeer) notesFor(requestID string) []channelNote {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []channelNote
	for _, n := range p.notes {
		if n.Params.RequestID == requestID || n.Params.Meta["request_id"] == requestID {
			out = append(out, n)
		}
	}
	return out
}

// verdict waits for the verdict on a request and returns its behavior.
func (p *channelPeer) verdict(requestID string) string {
	p.t.Helper()
	var got string
	until(p.t, "the verdict on "+requestID, func() bool {
		for _, n := range p.notesFor(requestID) {
			if n.Method == "notifications/claude/channel/permission" {
				got = n.Params.Behavior
				return true
			}
		}
		return false
	})
	return got
}

// questionFor waits for the question of a prompt, found by the request
// named in its context, in the peer's session.
func (p *channelPeer) questionFor(addr, requestID string) client.Result {
	p.t.Helper()
	var found client.Result
	until(p.t, "the question of "+requestID, func() bool {
		for _, q := range questionsOf(p.t, addr, p.session, "") {
			if strings.HasPrefix(q.ToolCallID, requestID+"-") {
				found = q
				return true
			}
		}
		return false
	})
	return found
}
