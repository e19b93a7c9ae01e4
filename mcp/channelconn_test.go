package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/mcp"
)

// channelPeer is the Claude Code side of a channel server under test: it
// writes raw JSON-RPC lines to the server and reads the server's lines.
type channelPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string

	mu      sync.Mutex
	handled []string // method + " " + params, as the server's handler got them
}

type echoInput struct {
	Text string `json:"text"`
}

// startChannelServer runs an SDK server with an echo tool over a
// ChannelTransport that takes the permission requests.
func startChannelServer(t *testing.T) (*channelPeer, *mcp.ChannelTransport) {
	t.Helper()
	toServer, fromPeer := io.Pipe()
	fromServer, toPeer := io.Pipe()
	p := &channelPeer{t: t, in: fromPeer, lines: make(chan string, 1024)}
	ct := mcp.NewChannelTransport(&sdk.IOTransport{Reader: toServer, Writer: toPeer}, func(method string, params json.RawMessage) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.handled = append(p.handled, method+" "+string(params))
	}, mcp.MethodPermissionRequest)
	s := sdk.NewServer(&sdk.Implementation{Name: "askbridge", Version: "test"}, &sdk.ServerOptions{
		Capabilities: mcp.ChannelCapabilities(),
		Instructions: "test instructions",
	})
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "echo"}, func(_ context.Context, _ *sdk.CallToolRequest, in echoInput) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: in.Text}}}, nil, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx, ct) }()
	go func() {
		sc := bufio.NewScanner(fromServer)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		cancel()
		_ = fromPeer.Close()
		<-done
		_ = fromServer.Close()
	})
	return p, ct
}

func (p *channelPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write %s: %v", line, err)
	}
}

// next returns the server's next line, failing after a few seconds.
func (p *channelPeer) next() string {
	p.t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed its output")
		}
		return l
	case <-time.After(10 * time.Second):
		p.t.Fatal("no line from the server within 10s")
		return ""
	}
}

// quiet checks that the server writes nothing for a moment.
func (p *channelPeer) quiet(d time.Duration) {
	p.t.Helper()
	select {
	case l := <-p.lines:
		p.t.Fatalf("the server wrote %s, want nothing", l)
	case <-time.After(d):
	}
}

func (p *channelPeer) handledCalls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.handled...)
}

// initialize runs the MCP handshake and returns the initialize result.
func (p *channelPeer) initialize() map[string]any {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.81"}}}`)
	var resp struct {
		ID     int            `json:"id"`
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal([]byte(p.next()), &resp); err != nil || resp.ID != 1 {
		p.t.Fatalf("initialize: %v %+v", err, resp)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return resp.Result
}

const permissionRequestLine = `{"jsonrpc":"2.0","method":"notifications/claude/channel/permission_request","params":{"request_id":"tbxkq","tool_name":"Bash","description":"List the files","input_preview":"{\"command\":\"ls -la\"}"}}`

// TestChannelTransportTakesPermissionRequests: the capabilities and
// instructions reach Claude Code; a permission_request notification goes
// to the handler and never to the SDK; the SDK's own traffic (a tool
// call, a request that merely carries the same method name, another
// unknown notification) is unaffected.
func TestChannelTransportTakesPermissionRequests(t *testing.T) {
	p, _ := startChannelServer(t)
	res := p.initialize()
	caps, _ := json.Marshal(res["capabilities"])
	if !strings.Contains(string(caps), `"experimental":{"claude/channel":{},"claude/channel/permission":{}}`) {
		t.Errorf("capabilities %s, want both channel capabilities as {}", caps)
	}
	if res["instructions"] != "test instructions" {
		t.Errorf("instructions %v", res["instructions"])
	}

	p.send(permissionRequestLine)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"}}}`)
	if l := p.next(); !strings.Contains(l, `"id":2`) || !strings.Contains(l, "still here") {
		t.Fatalf("tools/call after the notification: %s", l)
	}
	want := mcp.MethodPermissionRequest + ` {"request_id":"tbxkq","tool_name":"Bash","description":"List the files","input_preview":"{\"command\":\"ls -la\"}"}`
	if got := p.handledCalls(); len(got) != 1 || got[0] != want {
		t.Fatalf("handled %q, want %q", got, want)
	}

	// A request (it has an id) with the same method is the SDK's to
	// refuse; an unknown notification is the SDK's to drop.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"notifications/claude/channel/permission_request","params":{"request_id":"abcde"}}`)
	if l := p.next(); !strings.Contains(l, `"id":3`) || !strings.Contains(l, `"error"`) {
		t.Fatalf("a request named like the notification: %s, want an error response", l)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"x"}}`)
	p.quiet(200 * time.Millisecond)
	if got := p.handledCalls(); len(got) != 1 {
		t.Fatalf("handled %q, want only the notification", got)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`)
	if l := p.next(); !strings.Contains(l, `"id":4`) || !strings.Contains(l, `"echo"`) {
		t.Fatalf("tools/list: %s", l)
	}
}

// TestChannelTransportNotify: a verdict and an event go out as the
// notifications of the channels reference, with no id.
func TestChannelTransportNotify(t *testing.T) {
	p, ct := startChannelServer(t)
	p.initialize()
	ctx := context.Background()
	tests := []struct {
		method string
		params any
		want   string
	}{
		{mcp.MethodPermissionVerdict, mcp.PermissionVerdict{RequestID: "tbxkq", Behavior: mcp.BehaviorAllow},
			`{"jsonrpc":"2.0","method":"notifications/claude/channel/permission","params":{"request_id":"tbxkq","behavior":"allow"}}`},
		{mcp.MethodPermissionVerdict, mcp.PermissionVerdict{RequestID: "abcde", Behavior: mcp.BehaviorDeny},
			`{"jsonrpc":"2.0","method":"notifications/claude/channel/permission","params":{"request_id":"abcde","behavior":"deny"}}`},
		{mcp.MethodChannelEvent, mcp.ChannelEvent{Content: "use a temp dir", Meta: map[string]string{"request_id": "abcde"}},
			`{"jsonrpc":"2.0","method":"notifications/claude/channel","params":{"content":"use a temp dir","meta":{"request_id":"abcde"}}}`},
	}
	for _, tt := range tests {
		if err := ct.Notify(ctx, tt.method, tt.params); err != nil {
			t.Fatalf("notify %s: %v", tt.method, err)
		}
		if got := p.next(); got != tt.want {
			t.Errorf("wrote\n%s\nwant\n%s", got, tt.want)
		}
	}
}

// TestChannelTransportConcurrentWrites: verdicts written from many
// goroutines while the SDK answers many calls come out as whole lines,
// each once.
func TestChannelTransportConcurrentWrites(t *testing.T) {
	p, ct := startChannelServer(t)
	p.initialize()
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Go(func() {
			errs <- ct.Notify(context.Background(), mcp.MethodPermissionVerdict, mcp.PermissionVerdict{RequestID: fmt.Sprintf("r%03d", i), Behavior: mcp.BehaviorDeny})
		})
		wg.Go(func() {
			_, err := fmt.Fprintf(p.in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"call %d"}}}`+"\n", 100+i, i)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	verdicts, responses := map[string]bool{}, map[float64]bool{}
	for range 2 * n {
		var m struct {
			ID     *float64 `json:"id"`
			Method string   `json:"method"`
			Params struct {
				RequestID string `json:"request_id"`
			} `json:"params"`
		}
		l := p.next()
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not one JSON message: %q: %v", l, err)
		}
		switch {
		case m.Method == mcp.MethodPermissionVerdict:
			verdicts[m.Params.RequestID] = true
		case m.ID != nil:
			responses[*m.ID] = true
		default:
			t.Fatalf("unexpected line %s", l)
		}
	}
	if len(verdicts) != n || len(responses) != n {
		t.Fatalf("%d distinct verdicts and %d responses, want %d of each", len(verdicts), len(responses), n)
	}
}

// TestChannelTransportClosed: Notify fails before the transport connected
// and after the connection closed; a second Connect fails.
func TestChannelTransportClosed(t *testing.T) {
	r, w := io.Pipe()
	defer r.Close()
	ct := mcp.NewChannelTransport(&sdk.IOTransport{Reader: r, Writer: w}, func(string, json.RawMessage) {}, mcp.MethodPermissionRequest)
	v := mcp.PermissionVerdict{RequestID: "abcde", Behavior: mcp.BehaviorAllow}
	if err := ct.Notify(context.Background(), mcp.MethodPermissionVerdict, v); !errors.Is(err, mcp.ErrChannelClosed) {
		t.Fatalf("notify before connect: %v, want ErrChannelClosed", err)
	}
	conn, err := ct.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ct.Connect(context.Background()); err == nil {
		t.Fatal("a second Connect succeeded")
	}
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ct.Notify(context.Background(), mcp.MethodPermissionVerdict, v); !errors.Is(err, mcp.ErrChannelClosed) {
		t.Fatalf("notify after close: %v, want ErrChannelClosed", err)
	}
}
