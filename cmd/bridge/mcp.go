package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/mcp"
)

// MCPConfig configures the MCP endpoint of bridge serve (/mcp, streamable
// HTTP, behind the agent keys).
type MCPConfig struct {
	// Enabled mounts /mcp (true when unset).
	Enabled *bool `yaml:"enabled"`
	// ProgressEvery is how often a waiting ask_user call sends a progress
	// notification (10s when unset; 1s–5m).
	ProgressEvery ProgressInterval `yaml:"progress_every"`
}

// ProgressInterval is mcp.progress_every, checked as the file is read.
type ProgressInterval time.Duration

// UnmarshalYAML parses a Go duration within 1s–5m.
func (p *ProgressInterval) UnmarshalYAML(n *yaml.Node) error {
	v, err := broker.ParseDuration(n.Value)
	if err != nil {
		return valueError(n, fmt.Errorf("mcp.progress_every: %q is not a duration (use e.g. 10s)", n.Value))
	}
	if err := checkProgressEvery(v); err != nil {
		return valueError(n, err)
	}
	*p = ProgressInterval(v)
	return nil
}

func checkProgressEvery(d time.Duration) error {
	if d < 100*time.Millisecond || d > 5*time.Minute {
		return fmt.Errorf("mcp.progress_every: %s is outside 100ms–5m (clients time out without progress)", d)
	}
	return nil
}

// mountMCP mounts the streamable HTTP MCP endpoint at /mcp. Every request
// must carry an agent key, as on /v1; the tools ask through the broker in
// this process, as the agent whose key the call carries. The returned
// drain releases the tool calls that wait for answers: they return at once
// with their question still pending (and its id, for get_answer after the
// restart), so that they do not hold up a graceful shutdown; serve calls
// it together with the API's Drain.
func mountMCP(cfg Config, b *broker.Broker, srv *api.Server, log *slog.Logger) (drain func(), err error) {
	if cfg.MCP.Enabled != nil && !*cfg.MCP.Enabled {
		return func() {}, nil
	}
	if d := time.Duration(cfg.MCP.ProgressEvery); d != 0 {
		if err := checkProgressEvery(d); err != nil {
			return nil, err
		}
	}
	s, err := mcp.New(mcp.Config{
		Asker: func(h http.Header) (mcp.Asker, error) {
			agent, ok := srv.Agent(h)
			if !ok {
				return nil, errors.New("missing or wrong agent key: send Authorization: Bearer <key>")
			}
			return &brokerAsker{b: b, agent: agent}, nil
		},
		ProgressEvery: time.Duration(cfg.MCP.ProgressEvery),
		Version:       versionString(),
		Logger:        log.With("component", "mcp"),
		// The edge guard in front of the whole server checks Host.
		HostChecked: true,
	})
	if err != nil {
		return nil, err
	}
	srv.Handle("/mcp", srv.RequireAgent(s.HTTPHandler()))
	return s.Drain, nil
}

// newMCPCmd is `bridge mcp`: an MCP server on standard input and output
// that asks through the bridge at $ASKBRIDGE_SERVER with $ASKBRIDGE_KEY.
func newMCPCmd() *cobra.Command {
	var (
		every             time.Duration
		session, logLevel string
		noQuestion        bool
	)
	cmd := &cobra.Command{
		Use:   "mcp [flags]",
		Short: "Serve MCP on standard input and output",
		Long: `Serve the Model Context Protocol on standard input and output, with the
tools ask_user, get_answer and cancel_question, asking through the bridge.
Add it to an MCP client as a server command ("bridge mcp"). Logs go to
standard error.

` + cmdline.ClientEnv,
		Example: `  bridge mcp --session build-42`,
		Args:    cmdline.Args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkProgressEvery(every); err != nil {
				return cmdline.UsageErr("--progress-every: %s", strings.TrimPrefix(err.Error(), "mcp.progress_every: "))
			}
			if session == "" {
				session = os.Getenv("ASKBRIDGE_SESSION_ID")
			}
			log := newLogger(LogConfig{Level: logLevel}, cmd.ErrOrStderr())
			s, err := mcp.New(mcp.Config{
				Asker: mcp.Fixed(mcpClient()), SessionID: session, NoUserQuestion: noQuestion,
				ProgressEvery: every, Version: versionString(), Logger: log,
			})
			if err != nil {
				return err
			}
			t := &sdk.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}}
			return s.Run(cmd.Context(), t)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&every, "progress-every", mcp.DefaultProgressEvery, "how often a waiting ask_user call sends a progress notification")
	f.StringVar(&session, "session", "", "session id of the questions (default: $ASKBRIDGE_SESSION_ID, else random per process)")
	f.StringVar(&logLevel, "log-level", "warn", "log level on standard error: debug, info, warn, error")
	f.BoolVar(&noQuestion, "no-user-question", cmdline.EnvSwitch("ASKBRIDGE_NO_USER_QUESTION"), "ask_user returns at once, asking nobody, for unattended runs (default: $ASKBRIDGE_NO_USER_QUESTION)")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "standard input closed, or interrupted", cmdline.ExitBadInput, "bad input (unknown flag, a --progress-every out of range)", cmdline.ExitFailure, "failure")
	return cmd
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// brokerAsker is the tools' way to the bridge inside bridge serve: the
// broker itself, as one agent, with the HTTP API's semantics and errors.
type brokerAsker struct {
	b     *broker.Broker
	agent string
}

var _ mcp.Asker = (*brokerAsker)(nil)

// askWait is how long an ask blocks when the request names no wait, as
// on the HTTP API.
const askWait = 30 * time.Second

func (a *brokerAsker) Submit(ctx context.Context, q client.Question) (*client.Result, error) {
	body, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("mcp: encode question: %w", err)
	}
	var req broker.AskRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, &client.APIError{StatusCode: http.StatusBadRequest, Code: "invalid", Message: err.Error()}
	}
	bq, _, err := a.b.Ask(ctx, a.agent, &req)
	if err != nil {
		return nil, apiError(err)
	}
	wait := askWait
	if req.Wait != nil {
		wait = min(time.Duration(*req.Wait), 10*time.Minute)
	}
	return a.wait(ctx, bq, wait)
}

func (a *brokerAsker) Get(ctx context.Context, id string, wait time.Duration) (*client.Result, error) {
	bq, err := a.b.Get(ctx, a.agent, id)
	if err != nil {
		return nil, apiError(err)
	}
	a.b.RenewLease(ctx, bq) // as every read on the HTTP API does
	return a.wait(ctx, bq, wait)
}

func (a *brokerAsker) wait(ctx context.Context, bq *broker.Question, wait time.Duration) (*client.Result, error) {
	if bq.Status == broker.StatusPending && wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		q, err := a.b.Wait(wctx, a.agent, bq.ID)
		cancel()
		if err != nil {
			return nil, apiError(err)
		}
		bq = q
	}
	return clientResult(bq)
}

func (a *brokerAsker) Cancel(ctx context.Context, id, reason string) (*client.Result, error) {
	bq, err := a.b.Cancel(ctx, a.agent, id, reason)
	if err != nil {
		return nil, apiError(err)
	}
	return clientResult(bq)
}

// clientResult is the agent's view of a question, as the API sends it.
func clientResult(q *broker.Question) (*client.Result, error) {
	b, err := json.Marshal(q.Result())
	if err != nil {
		return nil, fmt.Errorf("mcp: encode result: %w", err)
	}
	var r client.Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("mcp: decode result: %w", err)
	}
	return &r, nil
}

// apiError gives a broker error the status and message the HTTP API
// would answer with.
func apiError(err error) error {
	var fe *broker.FieldError
	var ce *broker.ClosedError
	var le *broker.LimitError
	switch {
	case errors.As(err, &le):
		return &client.APIError{StatusCode: http.StatusTooManyRequests, Code: "limit", Message: le.Error() + "; try again later"}
	case errors.As(err, &fe):
		return &client.APIError{StatusCode: http.StatusBadRequest, Code: "invalid", Message: fe.Error(), Field: fe.Field}
	case errors.As(err, &ce):
		return &client.APIError{StatusCode: http.StatusConflict, Code: "closed", Message: err.Error(), State: client.Status(ce.Question.Status)}
	case errors.Is(err, broker.ErrNotFound):
		return &client.APIError{StatusCode: http.StatusNotFound, Code: "not_found", Message: err.Error()}
	case errors.Is(err, broker.ErrConflict):
		return &client.APIError{StatusCode: http.StatusConflict, Code: "conflict", Message: strings.TrimPrefix(err.Error(), broker.ErrConflict.Error()+": ")}
	case errors.Is(err, broker.ErrInvalid):
		return &client.APIError{StatusCode: http.StatusBadRequest, Code: "invalid", Message: strings.TrimPrefix(err.Error(), broker.ErrInvalid.Error()+": ")}
	case errors.Is(err, broker.ErrUnavailable):
		return &client.APIError{StatusCode: http.StatusServiceUnavailable, Code: "unavailable", Message: "the store is unavailable; try again shortly"}
	}
	return fmt.Errorf("askbridge: %w", err)
}
