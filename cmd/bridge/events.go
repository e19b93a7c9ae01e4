package main

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/client"
)

// eventLine is one line of `bridge events`.
type eventLine struct {
	EventID string        `json:"event_id"`
	Type    string        `json:"type"`
	Result  client.Result `json:"result"`
}

// newEventsCmd is `bridge events`: it prints each resolution of the
// agent's questions as one JSON line, following the server's event stream
// and resuming after reconnects, until interrupted.
func newEventsCmd() *cobra.Command {
	var (
		session, last  string
		jsonOut        bool
		connectTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "events [flags]",
		Short: "Stream resolutions as JSON lines",
		Long: `Print each resolution of the agent's questions as one JSON line
({"event_id","type","result"}), following the bridge's event stream and
resuming after lost connections without losing or repeating one, until
interrupted.

` + clientEnv,
		Example: `  bridge events --session build-42
  bridge events --last-event-id 0`,
		Args: args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			events, errc := blockingClient(cmd, connectTimeout).Events(cmd.Context(), client.EventsFilter{SessionID: session, LastEventID: last})
			enc := json.NewEncoder(jsonTerminal{cmd.OutOrStdout()})
			enc.SetEscapeHTML(false)
			for ev := range events {
				if err := enc.Encode(eventLine{EventID: ev.ID, Type: ev.Type, Result: ev.Result}); err != nil {
					return err
				}
			}
			if err := <-errc; err != nil && !errors.Is(err, context.Canceled) {
				return clientError(err, "")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&session, "session", "", "only this session's resolutions")
	f.StringVar(&last, "last-event-id", "", `resume after this event id ("0" replays what the server keeps; default: from now)`)
	f.BoolVar(&jsonOut, "json", false, "print JSON lines (always the case: events prints JSON)")
	addConnectTimeout(cmd, &connectTimeout)
	withExitCodes(cmd, exitOK, "interrupted", exitBadInput, "bad input (unknown flag, a bad --last-event-id)", exitFailure, "the bridge cannot be reached, or refused the key")
	return cmd
}
