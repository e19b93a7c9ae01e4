package clientcmd

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// newWaitCmd is `bridge wait`: wait for a question's result.
func newWaitCmd() *cobra.Command {
	var (
		jsonOut        bool
		connectTimeout time.Duration
	)
	cmd := &cobra.Command{
		Use:   "wait [flags] ID",
		Short: "Wait for a question's result",
		Long: `Wait until the question ID resolves, then print its result as JSON on
standard output; the exit code says how it ended. A question that has
already resolved prints at once.

` + cmdline.ClientEnv,
		Example: `  bridge wait k7m2qx`,
		Args:    cmdline.Args(1, 1, "the question's ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := cmdline.BlockingClient(cmd, connectTimeout).Wait(cmd.Context(), args[0])
			if err != nil {
				return cmdline.ClientError(err, cmdline.ListHint)
			}
			return cmdline.PrintResult(cmd.OutOrStdout(), res)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the result as JSON (always the case: wait prints JSON)")
	cmdline.AddConnectTimeout(cmd, &connectTimeout)
	cmdline.WithExitCodes(cmd, cmdline.ResultExitCodes("answered")...)
	return cmd
}

// newListCmd is `bridge list`: the agent's questions.
func newListCmd() *cobra.Command {
	var (
		session, status string
		jsonOut         bool
	)
	cmd := &cobra.Command{
		Use:   "list [flags]",
		Short: "List questions, newest first",
		Long: `List the agent's questions, newest first: a table of id, status, deadline,
question and options, or the results as JSON with --json. On a terminal the
table fits its width, the question (then the options) cut with "…"; on a
pipe or in a file every line is whole.

` + cmdline.ClientEnv,
		Example: `  bridge list --status pending
  bridge list --session build-42 --json`,
		Args: cmdline.Args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			qs, err := cmdline.NewClient(false).List(cmd.Context(), session, client.Status(status))
			if err != nil {
				return cmdline.ClientError(err, "")
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				if qs == nil {
					qs = []client.Result{}
				}
				cmdline.PrintJSON(out, qs)
				return nil
			}
			width := 0 // a pipe or a file gets every line whole
			if term, ok := cmdline.TerminalOf(out); ok {
				width = term.Width
			}
			return printList(out, qs, width)
		},
	}
	f := cmd.Flags()
	f.StringVar(&session, "session", "", "only this session's questions")
	f.StringVar(&status, "status", "", "only questions with this status (pending, answered, declined, timed_out, cancelled, unsupported)")
	f.BoolVar(&jsonOut, "json", false, "print the questions as a JSON array")
	return cmd
}

// newCancelCmd is `bridge cancel`: end open questions.
func newCancelCmd() *cobra.Command {
	var (
		session, reason string
		jsonOut         bool
	)
	cmd := &cobra.Command{
		Use:   "cancel [flags] ID | --session SESSION",
		Short: "Cancel a question, or every open question of a session",
		Long: `Cancel the question ID, or with --session every open question of that
session; people see the reason. Cancelling one question prints its result as
JSON; cancelling a session prints how many were cancelled, or their results
as JSON with --json.

` + cmdline.ClientEnv,
		Example: `  bridge cancel k7m2qx --reason "moved on"
  bridge cancel --session build-42`,
		Args: func(cmd *cobra.Command, a []string) error {
			switch {
			case session != "" && len(a) > 0:
				return cmdline.UsageErr("give an ID or --session, not both (usage: %s)", cmd.UseLine())
			case session == "":
				return cmdline.Args(1, 1, "the question's ID (or --session)")(cmd, a)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c, out := cmdline.NewClient(false), cmd.OutOrStdout()
			if session != "" {
				qs, err := c.CancelSession(cmd.Context(), session, reason)
				if err != nil {
					return cmdline.ClientError(err, "")
				}
				if jsonOut {
					if qs == nil {
						qs = []client.Result{}
					}
					cmdline.PrintJSON(out, map[string]any{"cancelled": qs})
					return nil
				}
				fmt.Fprintf(out, "cancelled %d question(s)\n", len(qs))
				return nil
			}
			res, err := c.Cancel(cmd.Context(), args[0], reason)
			if err != nil {
				return cmdline.Closed(cmd.Context(), c, args[0], err, cmdline.ListHint)
			}
			cmdline.PrintJSON(out, res)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&session, "session", "", "cancel every open question of this session")
	f.StringVar(&reason, "reason", "", "the reason shown to people")
	f.BoolVar(&jsonOut, "json", false, "print the cancelled questions as JSON (one question always prints JSON)")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "cancelled", cmdline.ExitBadInput, "bad input (unknown flag, missing ID)", cmdline.ExitFailure, "no such question, already resolved, or the bridge cannot be reached")
	return cmd
}
