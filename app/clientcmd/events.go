package clientcmd

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// EventLine is one line of `bridge events`: what a script reads.
type EventLine struct {
	EventID string        `json:"event_id"`
	Type    string        `json:"type"`
	Result  client.Result `json:"result"`
	// Extension is who snoozed and how often, on an extended event.
	Extension *client.Extension `json:"extension,omitempty"`
}

// newEventsCmd is `bridge events`: it prints each resolution of the
// agent's questions, and each snooze of one, as one JSON line, following the server's event stream
// and resuming after reconnects, until interrupted.
func newEventsCmd() *cobra.Command {
	var (
		session, last  string
		jsonOut        bool
		connectTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "events [flags]",
		Short: "Stream resolutions and snoozes as JSON lines",
		Long: `Print each resolution of the agent's questions as one JSON line
({"event_id","type":"resolved","result"}), and each snooze that moves a
pending question's deadline ({"event_id","type":"extended","result" with
the new expires_at,"extension" with snoozed_by and snoozes}), following
the bridge's event stream and resuming after lost connections without
losing or repeating one, until interrupted.

` + cmdline.ClientEnv,
		Example: `  bridge events --session build-42
  bridge events --last-event-id 0`,
		Args: cmdline.Args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			events, errc := cmdline.BlockingClient(cmd, connectTimeout).Events(cmd.Context(), client.EventsFilter{SessionID: session, LastEventID: last})
			enc := json.NewEncoder(cmdline.JSONTerminal{W: cmd.OutOrStdout()})
			enc.SetEscapeHTML(false)
			for ev := range events {
				if err := enc.Encode(EventLine{EventID: ev.ID, Type: ev.Type, Result: ev.Result, Extension: ev.Extension}); err != nil {
					return err
				}
			}
			if err := <-errc; err != nil && !errors.Is(err, context.Canceled) {
				return cmdline.ClientError(err, "")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&session, "session", "", "only this session's events")
	f.StringVar(&last, "last-event-id", "", `resume after this event id ("0" replays what the server keeps; default: from now)`)
	f.BoolVar(&jsonOut, "json", false, "print JSON lines (always the case: events prints JSON)")
	cmdline.AddConnectTimeout(cmd, &connectTimeout)
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "interrupted", cmdline.ExitBadInput, "bad input (unknown flag, a bad --last-event-id)", cmdline.ExitFailure, "the bridge cannot be reached, or refused the key")
	return cmd
}
