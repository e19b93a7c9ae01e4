package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Claude Code's channel protocol (a research preview, Claude Code 2.1.80
// and later; permission relay 2.1.81): a stdio MCP server that declares
// the experimental capability "claude/channel" may push events into the
// session, and one that also declares "claude/channel/permission" is sent
// every tool-approval prompt while the terminal's own dialog stays open;
// Claude Code applies whichever verdict arrives first and ignores one for
// a request it no longer has open. All three messages are notifications,
// which the Go SDK cannot register (it registers custom methods only as
// requests, and drops a notification it does not know): ChannelTransport
// carries them beside the SDK.
const (
	// ChannelCapability declares a channel; its value is always {}.
	ChannelCapability = "claude/channel"
	// ChannelPermissionCapability opts in to permission relay; always {}.
	ChannelPermissionCapability = "claude/channel/permission"
	// MethodChannelEvent pushes an event into the session (ChannelEvent).
	MethodChannelEvent = "notifications/claude/channel"
	// MethodPermissionRequest is a permission prompt, from Claude Code to
	// the server (PermissionRequest).
	MethodPermissionRequest = "notifications/claude/channel/permission_request"
	// MethodPermissionVerdict is the server's verdict on a prompt
	// (PermissionVerdict).
	MethodPermissionVerdict = "notifications/claude/channel/permission"
)

// PermissionRequest is the params of MethodPermissionRequest: four
// strings, all written by Claude Code or the model, so untrusted.
type PermissionRequest struct {
	// RequestID names the prompt (five lowercase letters, no "l"); a
	// verdict must echo it.
	RequestID string `json:"request_id"`
	// ToolName is the tool Claude wants to use ("Bash", "Write").
	ToolName string `json:"tool_name"`
	// Description is the summary the terminal dialog shows.
	Description string `json:"description"`
	// InputPreview is the tool's arguments as JSON, cut to 200 characters.
	InputPreview string `json:"input_preview"`
}

// The behaviors of a PermissionVerdict.
const (
	BehaviorAllow = "allow"
	BehaviorDeny  = "deny"
)

// PermissionVerdict is the params of MethodPermissionVerdict.
type PermissionVerdict struct {
	RequestID string `json:"request_id"`
	// Behavior is BehaviorAllow or BehaviorDeny. Neither affects later
	// calls of the tool.
	Behavior string `json:"behavior"`
}

// ChannelEvent is the params of MethodChannelEvent. It reaches the model
// as <channel source="<server name>" key="value"…>Content</channel>.
type ChannelEvent struct {
	Content string `json:"content"`
	// Meta become the tag's attributes; a key that is not letters,
	// digits and underscores is dropped by Claude Code.
	Meta map[string]string `json:"meta,omitempty"`
}

// ChannelCapabilities are the server capabilities of a channel that
// relays permission prompts, for sdk.ServerOptions.Capabilities.
func ChannelCapabilities() *sdk.ServerCapabilities {
	return &sdk.ServerCapabilities{Experimental: map[string]any{
		ChannelCapability:           map[string]any{},
		ChannelPermissionCapability: map[string]any{},
	}}
}

// ErrChannelClosed is returned by Notify before the transport connected
// and after its connection closed.
var ErrChannelClosed = errors.New("mcp: the channel connection is not open")

// ChannelTransport wraps the transport of an MCP server (or client): the
// notifications whose methods it takes go to Handle instead of the SDK,
// every other message passes unchanged, and Notify writes notifications
// of its own beside the SDK's messages. It connects once, like any
// sdk.Transport.
//
// The SDK tells a stdio connection the negotiated protocol version
// through an unexported method, which a wrapper cannot pass on; the one
// effect is that the stdio connection keeps accepting JSON-RPC batches on
// protocol versions that dropped them.
type ChannelTransport struct {
	inner   sdk.Transport
	methods []string
	handle  func(method string, params json.RawMessage)

	mu   sync.Mutex
	conn *channelConn
}

// NewChannelTransport returns a ChannelTransport over inner that hands
// the notifications of methods to handle, in the order they arrive, on
// the goroutine that reads the connection: handle must return quickly.
func NewChannelTransport(inner sdk.Transport, handle func(method string, params json.RawMessage), methods ...string) *ChannelTransport {
	return &ChannelTransport{inner: inner, methods: slices.Clone(methods), handle: handle}
}

// Connect implements sdk.Transport.
func (t *ChannelTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil {
		return nil, errors.New("mcp: a ChannelTransport connects once")
	}
	inner, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &channelConn{Connection: inner, t: t}
	return t.conn, nil
}

// Notify writes the notification method with params to the peer. It is
// safe to call from any goroutine, at the same time as the SDK writes.
func (t *ChannelTransport) Notify(ctx context.Context, method string, params any) error {
	t.mu.Lock()
	c := t.conn
	t.mu.Unlock()
	if c == nil {
		return ErrChannelClosed
	}
	if c.closed.Load() {
		return ErrChannelClosed
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcp: encode %s: %w", method, err)
	}
	if err := c.Write(ctx, &jsonrpc.Request{Method: method, Params: raw}); err != nil {
		return fmt.Errorf("mcp: write %s: %w", method, err)
	}
	return nil
}

// channelConn is the connection ChannelTransport hands to the SDK.
type channelConn struct {
	sdk.Connection
	t *ChannelTransport

	// wmu orders the SDK's writes and Notify's on one lock, so that a
	// notification never interleaves with a response whatever the inner
	// connection does.
	wmu    sync.Mutex
	closed atomic.Bool
}

// Read returns the next message for the SDK, handing the notifications
// the transport takes to its handler on the way.
func (c *channelConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || req.IsCall() || !slices.Contains(c.t.methods, req.Method) {
			return msg, nil
		}
		c.t.handle(req.Method, req.Params)
	}
}

// Write implements sdk.Connection.
func (c *channelConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.Connection.Write(ctx, msg)
}

// Close implements sdk.Connection; Notify fails from then on.
func (c *channelConn) Close() error {
	c.closed.Store(true)
	return c.Connection.Close()
}
