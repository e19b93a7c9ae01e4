package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/bridgeconfig"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/mcp"
)

// Defaults of `bridge channel`.
const (
	// defaultChannelTimeout is how long people have to answer a relayed
	// prompt; after it only the terminal can.
	defaultChannelTimeout = 30 * time.Minute
	// defaultChannelLease is how long the bridge keeps a relayed prompt's
	// question open after this server stopped showing itself (killed).
	defaultChannelLease = mcp.DefaultLease
)

// channelInstructions go into Claude's system prompt: what this channel
// sends, and that it takes no replies.
const channelInstructions = `This server relays Claude Code's permission prompts to people through askbridge (Slack, Discord, Telegram or its web inbox); whichever answer comes first, in chat or at the terminal, applies, and Claude Code handles the verdicts itself. When a person denies a prompt with words for you, they arrive as a <channel> tag with the attributes request_id, tool and behavior="deny": the person's note on that tool call, to take into account as a message from the user (moot if the prompt was answered at the terminal first). This channel has no reply tool; to ask people something, use askbridge's ask_user tool when it is configured.`

// channelOptions are the flags of `bridge channel`.
type channelOptions struct {
	route, session, logLevel       string
	timeout, lease, connectTimeout time.Duration
}

// check reports the first bad flag, naming it.
func (o channelOptions) check() error {
	if err := broker.CheckTimeout(o.timeout); err != nil {
		return cmdline.UsageErr("--timeout %v", err)
	}
	if o.lease < broker.MinLease || o.lease > broker.MaxLease {
		return cmdline.UsageErr("--lease must be between %s and 7d, got %s", broker.MinLease, o.lease)
	}
	if o.connectTimeout <= 0 {
		return cmdline.UsageErr("--connect-timeout must be above 0, got %s", o.connectTimeout)
	}
	if len(o.session) > broker.MaxIDFieldChars {
		return cmdline.UsageErr("--session must be at most %d characters, got %d", broker.MaxIDFieldChars, len(o.session))
	}
	return nil
}

// newChannelCmd is `bridge channel`: Claude Code's channel protocol on
// standard input and output, relaying its permission prompts to people.
func newChannelCmd() *cobra.Command {
	var o channelOptions
	cmd := &cobra.Command{
		Use:   "channel [flags]",
		Short: "Relay Claude Code's permission prompts to chat, racing the terminal",
		Long: `Serve Claude Code's channel protocol (research preview, Claude Code 2.1.81
or later) on standard input and output. Claude Code sends each permission
prompt here while its own dialog stays open; each becomes a question on
the route (Allow once, Deny), and a person's answer goes back as the
verdict. Whichever answer comes first, in chat or at the terminal,
applies; a prompt nobody answers in chat is left to the terminal.

Add it to .mcp.json as the server "askbridge" (command "bridge", args
["channel"]) and start Claude Code with
--dangerously-load-development-channels server:askbridge. Logs go to
standard error.

` + cmdline.ClientEnv,
		Example: `  bridge channel --route oncall --timeout 20m`,
		Args:    cmdline.Args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.check(); err != nil {
				return err
			}
			if o.session == "" {
				o.session = os.Getenv("ASKBRIDGE_SESSION_ID")
			}
			if o.session == "" {
				o.session = "channel-" + strings.ToLower(rand.Text()[:8])
			}
			log := newLogger(bridgeconfig.Log{Level: o.logLevel}, cmd.ErrOrStderr())
			s := sdk.NewServer(&sdk.Implementation{Name: "askbridge", Title: "askbridge", Version: versionString()}, &sdk.ServerOptions{
				Capabilities: mcp.ChannelCapabilities(),
				Instructions: channelInstructions,
				Logger:       log,
			})
			var r *channelRelay
			t := mcp.NewChannelTransport(&sdk.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}},
				func(_ string, params json.RawMessage) { r.receive(params) }, mcp.MethodPermissionRequest)
			r = newChannelRelay(cmd.Context(), mcpClient(), t.Notify, o, log)
			defer r.stop()
			log.Info("channel ready", "session_id", o.session, "route", o.route)
			if err := s.Run(cmd.Context(), t); err != nil && cmd.Context().Err() == nil {
				return fmt.Errorf("channel: %w", err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.route, "route", "", "the route to post to (default: default)")
	f.DurationVar(&o.timeout, "timeout", defaultChannelTimeout, "how long people have to answer (10s–7d); after it only the terminal can")
	f.DurationVar(&o.lease, "lease", defaultChannelLease, "how long a question outlives this server when it is killed (5s–7d)")
	f.DurationVar(&o.connectTimeout, "connect-timeout", mcpConnectTimeout, "give up on a prompt when the bridge cannot be reached within this long (the terminal decides)")
	f.StringVar(&o.session, "session", "", "session id of the questions (default: $ASKBRIDGE_SESSION_ID, else random per process)")
	f.StringVar(&o.logLevel, "log-level", "info", "log level on standard error: debug, info, warn, error")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "standard input closed, or interrupted", cmdline.ExitBadInput, "bad input (unknown flag, a duration out of range)", cmdline.ExitFailure, "failure")
	return cmd
}
