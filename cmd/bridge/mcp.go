package main

import (
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/mcp"
)

// mountMCP mounts the streamable HTTP MCP endpoint at /mcp. Every request
// must carry an agent key, as on /v1; the tools ask through the API in
// this process (the SDK client over srv.Transport), with the key the
// call carries, so they have the API's waits, limits and errors. Each
// agent holds at most limits.mcp_sessions_per_agent sessions, and a
// session closes after mcp.session_idle without requests. The returned
// drain releases the tool calls that wait for answers: they return at once
// with their question still pending (and its id, for get_answer after the
// restart), so that they do not hold up a graceful shutdown; serve calls
// it together with the API's Drain.
func mountMCP(cfg bridgeconfig.Config, srv *api.Server, log *slog.Logger) (drain func(), err error) {
	if cfg.MCP.Enabled != nil && !*cfg.MCP.Enabled {
		return func() {}, nil
	}
	if err := cfg.MCP.Validate(); err != nil {
		return nil, err
	}
	perAgent := 0 // the MCP server's default
	if n := cfg.Limits.MCPSessionsPerAgent; n != nil {
		perAgent = *n
	}
	s, err := mcp.New(mcp.Config{
		Asker: func(h http.Header) (mcp.Asker, error) {
			key, _ := strings.CutPrefix(h.Get("Authorization"), "Bearer ")
			c := client.New("http://askbridge.in-process", key)
			c.SetTransport(srv.Transport())
			return c, nil
		},
		// Sessions are counted per agent, named by the key as on /v1.
		Agent: func(h http.Header) string {
			name, _ := srv.Agent(h)
			return name
		},
		SessionsPerAgent: perAgent,
		SessionTimeout:   time.Duration(cfg.MCP.SessionIdle),
		EmbedFilesMax:    cfg.MCP.EmbedLimit(),
		ProgressEvery:    time.Duration(cfg.MCP.ProgressEvery),
		Version:          versionString(),
		Logger:           log.With("component", "mcp"),
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
		noQuestion, race  bool
		embed             int64
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
			if err := mcp.CheckProgressEvery(every); err != nil {
				return cmdline.UsageErr("--progress-every: %s", strings.TrimPrefix(err.Error(), "mcp.progress_every: "))
			}
			if err := mcp.CheckEmbedFilesMax(embed); err != nil {
				return cmdline.UsageErr("--embed-files-max: %s", strings.TrimPrefix(err.Error(), "mcp.embed_files_max: "))
			}
			if race && noQuestion {
				return cmdline.UsageErr("--race-local asks at the terminal and in chat, but --no-user-question (or $ASKBRIDGE_NO_USER_QUESTION) asks nobody: use one of them")
			}
			limit := embed
			if limit == 0 {
				limit = -1 // none
			}
			if session == "" {
				session = os.Getenv("ASKBRIDGE_SESSION_ID")
			}
			log := newLogger(bridgeconfig.Log{Level: logLevel}, cmd.ErrOrStderr())
			s, err := mcp.New(mcp.Config{
				Asker: mcp.Fixed(mcpClient()), SessionID: session, NoUserQuestion: noQuestion, RaceLocal: race,
				ProgressEvery: every, EmbedFilesMax: limit, Version: versionString(), Logger: log,
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
	f.Int64Var(&embed, "embed-files-max", mcp.DefaultEmbedFilesMax, "the largest file in bytes, other than a picture, that a result embeds (0: none; at most 10485760)")
	f.StringVar(&logLevel, "log-level", "warn", "log level on standard error: debug, info, warn, error")
	f.BoolVar(&noQuestion, "no-user-question", cmdline.EnvSwitch("ASKBRIDGE_NO_USER_QUESTION"), "ask_user returns at once, asking nobody, for unattended runs (default: $ASKBRIDGE_NO_USER_QUESTION)")
	f.BoolVar(&race, "race-local", false, "also show each question as a form in the client (MCP elicitation), when it takes forms: the first answer, there or in chat, wins and the other is withdrawn")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "standard input closed, or interrupted", cmdline.ExitBadInput, "bad input (unknown flag, a --progress-every out of range, --race-local with --no-user-question)", cmdline.ExitFailure, "failure")
	return cmd
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
