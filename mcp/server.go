package mcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/longlived"
)

// Asker is what the tools need of a bridge: the agent-facing calls of the
// HTTP API. *client.Client implements it.
type Asker interface {
	// Submit asks q; it returns the result when the question ended within
	// q.Wait, or a pending result with the question's id.
	Submit(ctx context.Context, q client.Question) (*client.Result, error)
	// Get returns the question, waiting up to wait while it is pending.
	Get(ctx context.Context, id string, wait time.Duration) (*client.Result, error)
	// Cancel ends a pending question with a reason shown to people.
	Cancel(ctx context.Context, id, reason string) (*client.Result, error)
}

var _ Asker = (*client.Client)(nil)

// AskerFor returns the Asker for one tool call, given the HTTP header of
// the request that carried it (nil on stdio). An error is shown to the
// model as a tool error.
type AskerFor func(header http.Header) (Asker, error)

// Fixed returns an AskerFor that always answers a.
func Fixed(a Asker) AskerFor {
	return func(http.Header) (Asker, error) { return a, nil }
}

// Defaults of Config.
const (
	DefaultProgressEvery = 10 * time.Second
	// MaxGetWait bounds how long one get_answer call blocks.
	MaxGetWait = 60 * time.Second
	// DefaultGetWait is get_answer's wait when the call names none.
	DefaultGetWait = 30 * time.Second
)

// Config configures a Server.
type Config struct {
	// Asker gives each tool call its way to the bridge. Required.
	Asker AskerFor
	// SessionID names the questions' session when the MCP session has no
	// id of its own (stdio). Empty means a random id per Server.
	SessionID string
	// ProgressEvery is how often a waiting call sends a progress
	// notification (DefaultProgressEvery when zero).
	ProgressEvery time.Duration
	// PollWait is how long one long-poll of the bridge blocks (25 s when
	// zero).
	PollWait time.Duration
	// Version is reported to clients.
	Version string
	Logger  *slog.Logger
	// NoUserQuestion turns questions off for this server: ask_user stays
	// listed, and a call returns at once, without contacting the bridge,
	// a result telling the model to proceed on its own assumption.
	NoUserQuestion bool
	// Lease is the lease of ask_user's questions when a call names none
	// (DefaultLease when zero): the bridge cancels a question when this
	// server has not shown itself for that long. Calls that wait renew it
	// with their long-polls; the server renews the questions it left
	// pending while it runs, and cancels them when their HTTP session ends.
	Lease time.Duration
	// Unreachable is how long a first ask retries a bridge that cannot be
	// reached before telling the model so (5 s when zero).
	Unreachable time.Duration
	// HostChecked says the server in front of HTTPHandler checks the Host
	// header against the names the bridge answers to (bridge serve's edge
	// guard). The SDK's own check, which refuses every name but localhost
	// on a loopback connection, is then off: behind a reverse proxy the
	// connection is loopback and the Host is the public name.
	HostChecked bool
	// SessionTimeout closes an HTTP session that sent no request for this
	// long (DefaultSessionIdle when zero); its pending questions are then
	// cancelled, as when the client ends the session.
	SessionTimeout time.Duration
	// Agent names the agent of an HTTP request from its header (the
	// bridge's agent key); HTTP sessions are counted per agent. Nil
	// counts every request as one agent's.
	Agent func(header http.Header) string
	// SessionsPerAgent caps the HTTP sessions one agent holds open
	// (DefaultSessionsPerAgent when zero). A new session beyond it closes
	// the agent's least recently used idle session, or is refused with a
	// 429 when all of them have a request under way.
	SessionsPerAgent int
	// EmbedFilesMax is the largest file people send, other than a
	// picture, that a result embeds (DefaultEmbedFilesMax when zero;
	// negative embeds none): files.go.
	EmbedFilesMax int64
	// RaceLocal races each waiting ask_user call's question between chat
	// and a form on the client's own screen, when the client declared
	// the elicitation capability: the first answer wins and the other
	// side is withdrawn (racelocal.go). It makes no sense with
	// NoUserQuestion, and New refuses the two together.
	RaceLocal bool
}

// Server is an MCP server with the ask_user, get_answer and
// cancel_question tools.
type Server struct {
	cfg Config
	sdk *sdk.Server
	log *slog.Logger

	draining context.Context
	drain    context.CancelFunc
	// submitRetry is how long a first ask retries a bridge that cannot
	// be reached before telling the model so.
	submitRetry time.Duration
	leases      *leases
	sessions    *sessions
	// streams are the connections of Run that carry the status
	// notifications of tasks (tasks_stream.go).
	streams taskStreams
	// stateKey signs the requestState of local forms on 2026-07-28
	// (racelocal_mrtr.go).
	stateKey []byte
	// forms are the local forms of this server's tasks
	// (tasks_input.go).
	forms taskForms
	// taps are the responses that can carry task status notifications
	// over HTTP (tasks_tap.go).
	taps taps
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Asker == nil {
		return nil, errors.New("mcp: Config.Asker is required")
	}
	if cfg.ProgressEvery <= 0 {
		cfg.ProgressEvery = DefaultProgressEvery
	}
	if cfg.PollWait <= 0 {
		cfg.PollWait = 25 * time.Second
	}
	if cfg.SessionID == "" {
		cfg.SessionID = "mcp-" + randomHex(8)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Lease == 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Unreachable <= 0 {
		cfg.Unreachable = 5 * time.Second
	}
	if cfg.RaceLocal && cfg.NoUserQuestion {
		return nil, errors.New("mcp: Config.RaceLocal asks at the terminal too, but NoUserQuestion asks nobody: set one of them")
	}
	if cfg.SessionsPerAgent < 0 {
		return nil, fmt.Errorf("mcp: Config.SessionsPerAgent is %d, want at least 1 (or 0 for %d)", cfg.SessionsPerAgent, DefaultSessionsPerAgent)
	}
	if cfg.SessionsPerAgent == 0 {
		cfg.SessionsPerAgent = DefaultSessionsPerAgent
	}
	if cfg.Agent == nil {
		cfg.Agent = func(http.Header) string { return "" }
	}
	s := &Server{cfg: cfg, log: cfg.Logger, submitRetry: cfg.Unreachable, leases: newLeases(), sessions: newSessions(cfg.SessionsPerAgent)}
	s.draining, s.drain = context.WithCancel(context.Background())
	s.stateKey = make([]byte, 32)
	_, _ = rand.Read(s.stateKey)
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "askbridge", Title: "askbridge", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: serverInstructions,
		Logger:       cfg.Logger,
		Capabilities: serverCapabilities(),
	})
	s.sdk.AddReceivingMiddleware(s.bindSession)
	if err := s.addTools(); err != nil {
		return nil, err
	}
	if err := s.addTasks(); err != nil {
		return nil, err
	}
	return s, nil
}

// SDK returns the underlying MCP server, to connect other transports.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// Run serves one client over t (e.g. &sdk.StdioTransport{}) until the
// client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	kctx, stop := context.WithCancel(ctx)
	defer context.AfterFunc(s.draining, stop)()
	var kept sync.WaitGroup
	kept.Go(func() { s.keepLeases(kctx) })
	defer kept.Wait()
	defer stop()
	t, done := s.streamTasks(kctx, t)
	defer done()
	if err := s.sdk.Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// Drain makes every tool call that waits for an answer return at once
// with the question still pending and its id, without cancelling it, so
// that a bridge shutting down is not held up and the agent can collect
// the answer with get_answer after the restart. Call it before
// http.Server.Shutdown.
func (s *Server) Drain() { s.drain() }

// HTTPHandler returns the streamable HTTP transport of the server. It
// does not authenticate: mount it behind the bridge's agent keys.
//
// The questions of a session live as long as it does: when it ends (a
// DELETE from the client, SessionTimeout without requests, or closed to
// make room for a new session of its agent) its waiting calls and the
// questions it left pending are cancelled with ReasonAgentGone; a call
// whose HTTP request goes away cancels its question. The leases of the
// questions left pending are renewed until Drain.
//
// Each agent holds at most SessionsPerAgent sessions (sessions.go): one
// more closes the agent's least recently used idle session, or is refused
// with 429 when all of them have a request under way. A closed session,
// and another agent's, get the SDK's 404 "session not found", on which
// clients start a new session.
//
// It offers no standalone GET stream (405, as the transport allows): the
// tools send their progress on the stream of the call itself, and an
// idle open stream per client would hold up a graceful shutdown.
//
// A call to ask_user may wait for minutes, past the HTTP server's write
// timeout: each write of its stream (a progress notification, the
// result) is bounded by that timeout instead of the whole response.
func (s *Server) HTTPHandler() http.Handler {
	go s.keepLeases(s.draining)
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		Logger: s.log,
		// Sessions of clients that went away are closed after
		// SessionTimeout of silence (DefaultSessionIdle by default); a
		// waiting tool call keeps its session open.
		SessionTimeout:             s.sessionTimeout(),
		DisableLocalhostProtection: s.cfg.HostChecked,
	})
	return longlived.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Allow", "POST, DELETE")
			http.Error(w, "this MCP endpoint has no standalone stream: send requests with POST", http.StatusMethodNotAllowed)
			return
		}
		agent := s.cfg.Agent(r.Header)
		r.Header.Del(slotHeader)
		r.Header.Del(taskHeader)
		r.Header.Del(streamHeader)
		r.Header.Del(tapHeader)
		if r.Method == http.MethodPost {
			body := liftTask(r)
			var forget func()
			w, forget = s.tapFor(w, r, body)
			defer forget()
		}
		session := r.Header.Get(sessionIDHeader)
		switch {
		case session == "" && r.Method == http.MethodPost && opensSession(r):
			sl, err := s.admitSession(agent)
			if err != nil {
				s.log.Info("mcp session refused", "agent", agent, "err", err)
				writeSessionLimit(w, r, err)
				return
			}
			defer s.sessions.done(sl)
			r.Header.Set(slotHeader, sl.id)
		case session != "":
			switch s.sessions.enter(session, agent) {
			case gone:
				http.Error(w, "session not found", http.StatusNotFound)
				return
			case entered:
				defer s.sessions.leave(session)
			}
		}
		if r.Method == http.MethodDelete {
			// Release the calls under way first: the SDK's DELETE waits
			// for them. The session's slot is free before the 204, so
			// that the client's next session finds it.
			s.sessionEnded(session)
			s.sessions.forget(session)
		}
		id, forget := s.leases.request(r.Context())
		defer forget()
		r.Header.Set(callHeader, id)
		h.ServeHTTP(w, r)
	}))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// sessionIDHeader is the header of the streamable transport that names
// the session of a request.
const sessionIDHeader = "Mcp-Session-Id"

// sessionTimeout is how long an idle HTTP session lives.
func (s *Server) sessionTimeout() time.Duration {
	if s.cfg.SessionTimeout > 0 {
		return s.cfg.SessionTimeout
	}
	return DefaultSessionIdle
}
