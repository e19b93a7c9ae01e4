package clientcmd

import (
	"fmt"
	"strings"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// newAuditCmd is `bridge audit`: what happened to a question under its
// team policies.
func newAuditCmd() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "audit [flags] ID",
		Short: "Show every vote, refusal, snooze and the resolution of a question",
		Long: `Show the audit log of the question ID: every vote, refused action, snooze
and escalation, then the resolution, each with who, when and through which
channel (see docs/policies.md). Prints one line per entry, or the entries as
JSON with --json.

` + cmdline.ClientEnv,
		Example: `  bridge audit k7m2qx
  bridge audit --json k7m2qx`,
		Args: cmdline.Args(1, 1, "the question's ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, err := cmdline.NewClient(false).Audit(cmd.Context(), args[0])
			if err != nil {
				return cmdline.ClientError(err, cmdline.ListHint)
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				if entries == nil {
					entries = []client.AuditEntry{}
				}
				cmdline.PrintJSON(out, map[string]any{"id": args[0], "entries": entries})
				return nil
			}
			for _, e := range entries {
				fmt.Fprintln(out, auditLine(e))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the entries as JSON")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "printed", cmdline.ExitBadInput, "bad input (unknown flag, missing ID)", cmdline.ExitFailure, "no such question, or the bridge cannot be reached")
	return cmd
}

// auditLine is one entry as text: "2026-11-29T14:02:00Z vote slack:U1
// (ana) Allow".
func auditLine(e client.AuditEntry) string {
	parts := []string{e.At.UTC().Format("2006-01-02T15:04:05Z"), e.Kind}
	if e.By != nil {
		who := e.By.Channel + ":" + e.By.User
		if e.By.Name != "" && e.By.Name != e.By.User {
			who += " (" + e.By.Name + ")"
		}
		parts = append(parts, who)
	}
	if e.Status != "" {
		parts = append(parts, string(e.Status))
	}
	if e.Choice != "" {
		parts = append(parts, e.Choice)
	}
	if e.ExpiresAt != nil {
		parts = append(parts, "expires "+e.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if e.Detail != "" {
		parts = append(parts, "— "+e.Detail)
	}
	return strings.Join(parts, " ")
}
