package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/longlived"
	"github.com/askbridge/askbridge/internal/park"
)

// Key is one bearer key and who holds it: an agent (for the question
// calls) or a responder (for /v1/commands, where Name and User become
// answered_by).
type Key struct {
	Name string
	User string
	// Secret is the key itself, as read from its environment variable.
	Secret string
	// RequireIDs refuses the agent's asks without session_id and
	// tool_call_id (ids.go): AgentKeys sets it unless the agent has
	// agents[].legacy_ids.
	RequireIDs bool
}

// Config configures the API server.
type Config struct {
	AgentKeys     []Key
	ResponderKeys []Key
	// Loopback is true when the server listens on loopback only; then,
	// with no keys configured, callers need none.
	Loopback bool
	// TextChannels are the channels /v1/commands may act for ("cli").
	TextChannels []string
	// MaxBody limits request bodies (64 KiB when zero).
	MaxBody int64
	// DefaultWait is how long an ask blocks when it names no wait
	// (api.DefaultWait when zero); MaxWait bounds every wait (api.MaxWait
	// when zero).
	DefaultWait time.Duration
	MaxWait     time.Duration
	Logger      *slog.Logger
	// Metrics, when set, is served at /metrics, behind MetricsKey (a
	// bearer key) when that is set.
	Metrics    *Metrics
	MetricsKey string
	// MetricsRefusal, when set, is what GET /metrics answers (404)
	// instead of the metrics: they are served elsewhere or not at all.
	MetricsRefusal string
	// CallbackPolicy, when set, checks every callback_url at ask time, so
	// a URL the deliverer would refuse is a 400 naming the field.
	CallbackPolicy interface{ Check(url string) error }
	// StreamsPerAgent caps the /v1/events streams one agent holds open on
	// this server (DefaultStreamsPerAgent when zero); one more is a 429.
	StreamsPerAgent int
	// Parking, when set, takes over the connections of HTTP/1.1
	// long-polls while they wait (internal/park); the HTTP server must
	// serve it as a listener too.
	Parking *park.Parking
	// AuditKey, when set, is a bearer key that reads the audit trails of
	// every agent's questions (audit.go); agent keys read their own.
	AuditKey string
}

// DefaultStreamsPerAgent is the cap on one agent's open event streams when
// Config sets none.
const DefaultStreamsPerAgent = 16

// StreamsSetting is the configuration key of the bridge that sets
// Config.StreamsPerAgent; the 429 names it.
const StreamsSetting = "limits.streams_per_agent"

// Store is what the server reads from the store beside the broker: the
// event log that GET /v1/events streams, the outbox that GET
// /v1/questions/{id}/deliveries reports on, and the reachability that
// GET /readyz tells. Every change goes through the broker.
type Store interface {
	broker.EventLog
	// Deliveries lists the callback deliveries of a question (see
	// broker.Outbox).
	Deliveries(ctx context.Context, questionID string) ([]broker.Delivery, error)
	// Ping checks that the store is reachable (see broker.Housekeeping).
	Ping(ctx context.Context) error
}

// Server serves the HTTP API.
type Server struct {
	cfg    Config
	b      *broker.Broker
	st     Store
	log    *slog.Logger
	mux    *http.ServeMux
	agents []hashedKey
	resps  []hashedKey
	// streams counts the open event streams of each agent (streams.go).
	streams *streamSlots
	// auditKey is the digest of Config.AuditKey, nil without one.
	auditKey *[32]byte
	// legacyWarned holds the agents whose ask without ids was logged.
	legacyWarned sync.Map

	drainCtx context.Context
	drain    context.CancelFunc

	// unparked counts the long-polls waiting on their request's
	// goroutine before they may park, for parkAfter, at most unparkedMax
	// at once (wait.go).
	unparked    atomic.Int64
	parkAfter   time.Duration
	unparkedMax int64
}

type hashedKey struct {
	Key
	sum [32]byte
}

// New returns a Server for b, which reads the event log, the outbox and
// the reachability of b's store from st.
func New(cfg Config, b *broker.Broker, st Store) *Server {
	if cfg.MaxBody == 0 {
		cfg.MaxBody = 64 << 10
	}
	if cfg.DefaultWait == 0 {
		cfg.DefaultWait = DefaultWait
	}
	if cfg.MaxWait == 0 {
		cfg.MaxWait = MaxWait
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if len(cfg.TextChannels) == 0 {
		cfg.TextChannels = []string{"cli"}
	}
	if cfg.StreamsPerAgent <= 0 {
		cfg.StreamsPerAgent = DefaultStreamsPerAgent
	}
	s := &Server{cfg: cfg, b: b, st: st, log: cfg.Logger, mux: http.NewServeMux(), streams: newStreamSlots(cfg.StreamsPerAgent),
		parkAfter: parkAfter, unparkedMax: unparkedMax}
	s.drainCtx, s.drain = context.WithCancel(context.Background())
	s.auditKey = hashAuditKey(cfg.AuditKey)
	for _, k := range cfg.AgentKeys {
		s.agents = append(s.agents, hashedKey{k, sha256.Sum256([]byte(k.Secret))})
		if !k.RequireIDs {
			s.log.Warn("agents[].legacy_ids is set: this agent's asks may leave session_id and tool_call_id out, and then are not idempotent; it goes in a later release", "agent", k.Name)
		}
	}
	for _, k := range cfg.ResponderKeys {
		s.resps = append(s.resps, hashedKey{k, sha256.Sum256([]byte(k.Secret))})
	}
	s.routes()
	return s
}

func (s *Server) routes() {
	// An ask and a get may wait up to MaxWait (long-polls), past the
	// HTTP server's write timeout: longlived bounds each write instead.
	s.mux.Handle("POST /v1/questions", longlived.Handler(s.agent(s.ask)))
	s.mux.HandleFunc("GET /v1/questions", s.agent(s.list))
	s.mux.Handle("GET /v1/questions/{id}", longlived.Handler(s.agent(s.get)))
	s.mux.HandleFunc("POST /v1/questions/{id}/cancel", s.agent(s.cancel))
	s.mux.HandleFunc("POST /v1/questions/{id}/answer", s.agent(s.answerAtTerminal))
	s.mux.HandleFunc("GET /v1/questions/{id}/audit", s.auditReader(s.audit))
	s.mux.HandleFunc("GET /v1/audit", s.auditReader(s.auditExport))
	s.mux.HandleFunc("GET /v1/questions/{id}/attachments/{n}", s.agent(s.attachment))
	s.mux.HandleFunc("POST /v1/sessions/{session_id}/cancel", s.agent(s.cancelSession))
	s.rulesRoutes()
	// GET /v1/sessions/{id}/messages, POST /v1/sessions/{id}/replies
	// (conversations.go)
	s.conversationRoutes()
	s.eventRoutes() // GET /v1/events, GET /v1/questions/{id}/deliveries (events.go)
	s.mux.HandleFunc("POST /v1/commands", s.command)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /readyz", s.ready)
	switch {
	case s.cfg.MetricsRefusal != "":
		s.mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) {
			writeError(w, http.StatusNotFound, "not_found", s.cfg.MetricsRefusal, "")
		})
	case s.cfg.Metrics != nil:
		s.mux.Handle("GET /metrics", s.cfg.Metrics.Guarded(s.cfg.MetricsKey))
	}
	s.mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "no such endpoint: "+r.Method+" "+r.URL.Path, "")
	})
}

// Handle mounts h at pattern on the server's mux (the web inbox at "/",
// platform webhooks, the MCP endpoint).
func (s *Server) Handle(pattern string, h http.Handler) { s.mux.Handle(pattern, h) }

// ServeHTTP serves the API.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Drain makes every blocking call return at once with the question's
// current state (202 for pending ones), so agents re-attach elsewhere or
// after a restart. Call it before http.Server.Shutdown.
func (s *Server) Drain() { s.drain() }

// waitContext ends at deadline, when parent (the request) ends, or when
// the server drains.
func (s *Server) waitContext(parent context.Context, deadline time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithDeadline(parent, deadline)
	stop := context.AfterFunc(s.drainCtx, cancel)
	return ctx, func() { stop(); cancel() }
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.st.Ping(ctx); err != nil {
		// The detail (addresses, paths) is for the operator's log, not
		// for whoever asks.
		s.log.Warn("readiness check: store unavailable", "err", err)
		writeError(w, http.StatusServiceUnavailable, "unavailable", "store unavailable", "")
		return
	}
	if s.drainCtx.Err() != nil {
		writeError(w, http.StatusServiceUnavailable, "draining", "shutting down", "")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// LocalAgent is the agent name of callers when no agent key is configured.
const LocalAgent = "local"

// Agent returns the agent whose key the headers carry (LocalAgent on a
// loopback server with no keys configured), or false.
func (s *Server) Agent(h http.Header) (string, bool) {
	if len(s.agents) == 0 {
		return LocalAgent, s.cfg.Loopback
	}
	k, ok := match(s.agents, h)
	return k.Name, ok
}

// RequireAgent refuses requests without a valid agent key with the API's
// 401, for endpoints mounted beside the API (the MCP endpoint).
func (s *Server) RequireAgent(h http.Handler) http.Handler {
	return s.agent(func(w http.ResponseWriter, r *http.Request, _ string) { h.ServeHTTP(w, r) })
}

// agent authenticates an agent key and passes the agent's name on.
func (s *Server) agent(h func(http.ResponseWriter, *http.Request, string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		name, ok := s.Agent(r.Header)
		switch {
		case !ok && len(s.agents) == 0:
			writeError(w, http.StatusUnauthorized, "unauthorized", "no agent keys are configured on a server that listens beyond loopback", "")
		case !ok:
			w.Header().Set("WWW-Authenticate", `Bearer realm="askbridge"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong agent key: send Authorization: Bearer <key>", "")
		default:
			h(w, r, name)
		}
	}
}

// match finds the key a request carries, comparing digests in constant
// time so that no key leaks through timing.
func match(keys []hashedKey, h http.Header) (Key, bool) {
	tok, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		return Key{}, false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	found := -1
	for i := range keys {
		if subtle.ConstantTimeCompare(sum[:], keys[i].sum[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return Key{}, false
	}
	return keys[found].Key, true
}
