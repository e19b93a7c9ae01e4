package mcp

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionRetryAfter is the Retry-After of the 429, in seconds, as for the
// API's other limits per agent.
const sessionRetryAfter = 30

// codeLimit is the JSON-RPC error code of the 429 (the range -32000 to
// -32099 is left to servers).
const codeLimit = -32000

// pruneSessions makes the sessions counted per agent forget those the
// SDK closed, and returns the ids of the sessions that are open.
func (s *Server) pruneSessions() map[string]bool {
	since := s.sessions.mark()
	open := map[*sdk.ServerSession]bool{}
	ids := map[string]bool{}
	for ss := range s.sdk.Sessions() {
		open[ss] = true
		ids[ss.ID()] = true
	}
	s.sessions.prune(open, since)
	return ids
}

// admitSession gives the agent a slot for a new session, closing its
// least recently used idle session first when it holds all its slots.
func (s *Server) admitSession(agent string) (*slot, error) {
	if s.sessions.full(agent) {
		// Sessions the SDK closed for idleness free their slots first.
		s.pruneSessions()
	}
	sl, victim, err := s.sessions.admit(agent)
	if err != nil {
		return nil, err
	}
	if victim != nil {
		id := victim.ss.ID()
		_ = victim.ss.Close()
		s.sessions.forget(id)
		s.log.Debug("mcp session closed to make room for a new one of its agent", "session_id", id, "agent", agent, "setting", SessionsSetting)
		s.sessionEnded(id)
	}
	return sl, nil
}

// opensSession reports whether r, a POST without a session id, may open
// a session: only an initialize does (the SDK closes the session of any
// other request when it ends), so a client's server/discover probe or a
// ping takes no slot. Holding one would count against the agent until
// the handler returns, just after the client has its answer and sends
// its initialize. The body is put back for the SDK; one that is not a
// single JSON-RPC request is left to the SDK to refuse, with a slot.
func opensSession(r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		// The SDK meets the same error (a body over the server's limit
		// stays a 413).
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), failedReader{err}))
		return true
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	req, ok := decodeRequest(body)
	return !ok || req.Method == "initialize"
}

// failedReader returns err on every read.
type failedReader struct{ err error }

func (f failedReader) Read([]byte) (int, error) { return 0, f.err }

// bindSession is the SDK middleware that gives a session, as it
// initializes, the slot its HTTP request holds.
func (s *Server) bindSession(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "initialize" {
			if ss, ok := req.GetSession().(*sdk.ServerSession); ok && req.GetExtra() != nil && req.GetExtra().Header != nil {
				s.sessions.bind(req.GetExtra().Header.Get(slotHeader), ss)
			}
		}
		return next(ctx, method, req)
	}
}

// writeSessionLimit answers 429 with a JSON-RPC error for the request in
// r's body, so that an MCP client shows the message.
func writeSessionLimit(w http.ResponseWriter, r *http.Request, err error) {
	var id jsonrpc.ID
	if body, rerr := io.ReadAll(io.LimitReader(r.Body, 64<<10)); rerr == nil {
		if req, ok := decodeRequest(body); ok {
			id = req.ID
		}
	}
	data, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: codeLimit, Message: err.Error()}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.Itoa(sessionRetryAfter))
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(data)
}

// decodeRequest decodes one JSON-RPC request.
func decodeRequest(body []byte) (*jsonrpc.Request, bool) {
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return nil, false
	}
	req, ok := msg.(*jsonrpc.Request)
	return req, ok
}
