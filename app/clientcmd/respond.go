package clientcmd

import (
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// responderEnv is the paragraph on the environment in the help of answer
// and decline.
const responderEnv = `It talks to $ASKBRIDGE_SERVER (default http://127.0.0.1:8377) with the
responder key in $ASKBRIDGE_RESPONDER_KEY (else $ASKBRIDGE_KEY); a bridge
on loopback with no responder keys takes answers from "local".`

// respondExitCodes are those of answer, decline and snooze.
var respondExitCodes = []any{
	cmdline.ExitOK, "recorded",
	cmdline.ExitBadInput, "bad input (unknown flag, missing argument, a choice that is not an option)",
	cmdline.ExitFailure, "refused (no such question, already answered, not yours to answer) or the bridge cannot be reached",
}

// newAnswerCmd is `bridge answer`: answer a question as a person.
func newAnswerCmd() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "answer [flags] ID CHOICE...",
		Short: "Answer a question as a person",
		Long: `Answer a question as a person, as "/answer ID CHOICE" would in a chat.
CHOICE is an option's number (2), several numbers (1,3), an option's label,
"other" and free text, options with a note (1,3 other <text>), or "skip".
Put -- before a text that starts with "-".

` + responderEnv,
		Example: `  bridge answer k7m2qx 2
  bridge answer k7m2qx other keep the current name
  bridge answer k7m2qx.2 1,3`,
		Args: cmdline.Args(2, -1, "ID and CHOICE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sendCommand(cmd, "/answer "+strings.Join(args, " "), jsonOut)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, `print {"ok","reply","question"} as JSON`)
	cmdline.WithExitCodes(cmd, respondExitCodes...)
	return cmd
}

// newDeclineCmd is `bridge decline`: decline a question as a person.
func newDeclineCmd() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "decline [flags] ID [REASON...]",
		Short: "Decline a question as a person",
		Long: `Decline a question as a person, with an optional reason the agent reads.

` + responderEnv,
		Example: `  bridge decline k7m2qx not today`,
		Args:    cmdline.Args(1, -1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sendCommand(cmd, "/decline "+strings.Join(args, " "), jsonOut)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, `print {"ok","reply","question"} as JSON`)
	cmdline.WithExitCodes(cmd, respondExitCodes...)
	return cmd
}

// newSnoozeCmd is `bridge snooze`: move a question's deadline as a person,
// where its route allows snoozes.
func newSnoozeCmd() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "snooze [flags] ID",
		Short: "Snooze a question as a person (move its deadline)",
		Long: `Snooze a question as a person, as "/snooze ID" would in a chat: its deadline
and reminders move by the route's snooze.by, up to snooze.max times (see
docs/policies.md). A route without snooze refuses it, and nothing changes.

` + responderEnv,
		Example: `  bridge snooze k7m2qx`,
		Args:    cmdline.Args(1, 1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return sendCommand(cmd, "/snooze "+args[0], jsonOut)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, `print {"ok","reply","question"} as JSON`)
	cmdline.WithExitCodes(cmd, respondExitCodes...)
	return cmd
}

// sendCommand sends a text command as a responder and prints the reply.
func sendCommand(cmd *cobra.Command, text string, jsonOut bool) error {
	res, err := cmdline.NewClient(true).Command(cmd.Context(), "", text)
	if err != nil {
		return cmdline.ClientError(err, cmdline.ListHint)
	}
	if jsonOut {
		cmdline.PrintJSON(cmd.OutOrStdout(), res)
		return nil
	}
	fmt.Fprintln(cmd.OutOrStdout(), cmdline.Printable(res.Reply, true))
	return nil
}
