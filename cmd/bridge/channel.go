package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/broker"
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
// sends, and how to answer people with the reply tool.
const channelInstructions = `This server relays Claude Code's permission prompts to people through askbridge (Slack, Discord, Telegram or its web inbox); whichever answer comes first, in chat or at the terminal, applies, and Claude Code handles the verdicts itself. When a person denies a prompt with words for you, they arrive as a <channel> tag with the attributes request_id, tool and behavior="deny": the person's note on that tool call, to take into account as a message from the user (moot if the prompt was answered at the terminal first). Once a prompt has been answered, the people who may answer it can go on writing to you under it (in its Slack thread, as a reply to its message on Telegram or Discord, on its card in the web inbox): each message arrives as a <channel> tag with the attributes message_id, question_id, channel and user, and person and person_name when the bridge knows who they are; read it as a message from the user. To answer, call the reply tool with your text and that message_id (leave it out to answer the latest message); it is posted where the person wrote. Reply only to these messages, and do not repeat there what you already said at the terminal. To ask people something new, use askbridge's ask_user tool when it is configured.`

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
		Short: "Relay Claude Code's permission prompts to chat, racing the terminal, and people's replies back",
		Long: `Serve Claude Code's channel protocol (research preview, Claude Code 2.1.81
or later) on standard input and output. Claude Code sends each permission
prompt here while its own dialog stays open; each becomes a question on
the route (Allow once, Deny), and a person's answer goes back as the
verdict. Whichever answer comes first, in chat or at the terminal,
applies; a prompt nobody answers in chat is left to the terminal.

Once a prompt has been answered, the people who may answer its route can
go on writing under it (its Slack thread, a reply to its message on
Telegram or Discord, its card in the web inbox): each message reaches
Claude as a channel event, and Claude answers with the reply tool, which
posts where they wrote. Anyone else is refused. People are told when no
such server of the session has polled for a minute.

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
			var r *channelRelay
			t := mcp.NewChannelTransport(&sdk.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{cmd.OutOrStdout()}},
				func(_ string, params json.RawMessage) { r.receive(params) }, mcp.MethodPermissionRequest)
			c := mcpClient()
			r = newChannelRelay(cmd.Context(), c, t.Notify, o, log)
			defer r.stop()
			// People's messages are polled until the session ends.
			chatCtx, endChat := context.WithCancel(cmd.Context())
			chat := &channelChat{c: c, notify: t.Notify, session: o.session, log: log}
			defer chat.stop()
			defer endChat()
			chat.listen(chatCtx)
			caps := mcp.ChannelCapabilities()
			caps.Tools = &sdk.ToolCapabilities{}
			s := sdk.NewServer(&sdk.Implementation{Name: "askbridge", Title: "askbridge", Version: versionString()}, &sdk.ServerOptions{
				Capabilities: caps,
				Instructions: channelInstructions,
				Logger:       log,
			})
			chat.addTool(s)
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
