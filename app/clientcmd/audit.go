package clientcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// auditEnv is the paragraph on the keys the audit commands use.
const auditEnv = `It talks to $ASKBRIDGE_SERVER (default http://127.0.0.1:8377) with the
audit key in $ASKBRIDGE_AUDIT_KEY when it is set (the key in audit.key_env,
which reads every agent's questions), else the agent key in $ASKBRIDGE_KEY
(which reads the agent's own).`

// auditClient is the client of the audit commands: the audit key when
// one is set, else the agent key.
func auditClient() *client.Client {
	if k := os.Getenv("ASKBRIDGE_AUDIT_KEY"); k != "" {
		return client.New(os.Getenv("ASKBRIDGE_SERVER"), k)
	}
	return cmdline.NewClient(false)
}

// newAuditCmd is `bridge audit`: what happened to a question, or to every
// question since a time.
func newAuditCmd() *cobra.Command {
	var jsonOut bool
	var since, agent string
	cmd := &cobra.Command{
		Use:   "audit [flags] [ID]",
		Short: "Show what happened to a question, or to every question since a time",
		Long: `Show the audit trail of the question ID: its ask, every copy posted, vote,
refused action, snooze, escalation, note and answer to a prompt, then its
resolution, each with who, when and through which channel (see
docs/policies.md). The trail outlives the question. Prints one line per
entry, or the trail as JSON with --json; "bridge audit verify ID" checks it.

With --since instead of an ID, prints the entries of every question recorded
since a time (RFC 3339, or a duration back from now: 24h, 7d), oldest first;
with --json as JSON lines, one entry per line, for export.

` + auditEnv,
		Example: `  bridge audit k7m2qx
  bridge audit --json k7m2qx
  bridge audit --since 24h --json > audit.jsonl
  bridge audit verify k7m2qx`,
		Args: cmdline.Args(0, 1, "the question's ID, or --since"),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			switch {
			case since != "" && len(args) > 0:
				return cmdline.UsageErr("give a question's ID or --since, not both")
			case since == "" && len(args) == 0:
				return cmdline.UsageErr("missing the question's ID, or --since (usage: %s)", cmd.UseLine())
			case agent != "" && since == "":
				return cmdline.UsageErr("--agent goes with --since")
			case since != "":
				from, err := parseSince(since, time.Now())
				if err != nil {
					return cmdline.UsageErr("--since: %v", err)
				}
				return auditSince(cmd, out, client.AuditQuery{Since: from, Agent: agent}, jsonOut)
			}
			log, err := auditClient().AuditLog(cmd.Context(), args[0])
			if err != nil {
				return cmdline.ClientError(err, cmdline.ListHint)
			}
			if jsonOut {
				if log.Entries == nil {
					log.Entries = []client.AuditEntry{}
				}
				cmdline.PrintJSON(out, log)
				return nil
			}
			for _, e := range log.Entries {
				fmt.Fprintln(out, auditLine(e))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the trail as JSON (with --since: JSON lines)")
	cmd.Flags().StringVar(&since, "since", "", "show every question's entries since a time (RFC 3339) or a duration back from now (24h, 7d)")
	cmd.Flags().StringVar(&agent, "agent", "", "with --since and the audit key: one agent's entries")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "printed", cmdline.ExitBadInput, "bad input (unknown flag, missing ID, a bad --since)", cmdline.ExitFailure, "no such question, or the bridge cannot be reached")
	cmd.AddCommand(newAuditVerifyCmd())
	return cmd
}

// newAuditVerifyCmd is `bridge audit verify ID`.
func newAuditVerifyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "verify ID",
		Short: "Check that a question's audit trail is whole",
		Long: `Check the chain of the audit trail of the question ID: each entry carries the
hash of the one before, so an entry changed, removed or moved afterwards
shows. Prints "verified: N entries", or names the first broken entry and
exits 1.

` + auditEnv,
		Example: `  bridge audit verify k7m2qx`,
		Args:    cmdline.Args(1, 1, "the question's ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			log, err := auditClient().AuditLog(cmd.Context(), args[0])
			if err != nil {
				return cmdline.ClientError(err, cmdline.ListHint)
			}
			if !log.Verified {
				return cmdline.Exit(cmdline.ExitFailure, fmt.Errorf("not verified: %s", log.Problem))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "verified: %d entries\n", len(log.Entries))
			return nil
		},
	}
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "the trail is whole", cmdline.ExitBadInput, "bad input (unknown flag, missing ID)", cmdline.ExitFailure, "the trail is broken (the entry is named), no such question, or the bridge cannot be reached")
	return cmd
}

// parseSince reads --since: a time (RFC 3339) or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	d, err := broker.ParseDuration(s)
	if err != nil || d <= 0 {
		return time.Time{}, fmt.Errorf("%q is neither a time (RFC 3339, 2026-11-29T14:00:00Z) nor a duration back from now (24h, 7d)", s)
	}
	return now.Add(-d), nil
}

// auditSince prints the entries q selects as they arrive: one line each,
// or one JSON line each.
func auditSince(cmd *cobra.Command, out io.Writer, q client.AuditQuery, jsonOut bool) error {
	err := auditClient().AuditSince(cmd.Context(), q, func(e client.AuditEntry) error {
		if !jsonOut {
			_, err := fmt.Fprintf(out, "%s #%d %s\n", e.Question, e.Seq, auditLine(e))
			return err
		}
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(cmdline.JSONTerminal{W: out}, "%s\n", b)
		return err
	})
	if err != nil {
		return cmdline.ClientError(err, "")
	}
	return nil
}

// auditLine is one entry as text: "2026-11-29T14:02:00Z vote slack:U1
// (Ana) Allow".
func auditLine(e client.AuditEntry) string {
	parts := []string{e.At.UTC().Format("2006-01-02T15:04:05Z"), e.Kind}
	if e.By != nil {
		who := e.By.Channel + ":" + e.By.User
		switch {
		case e.By.Person != nil && e.By.Person.Name != "":
			who += " (" + e.By.Person.Name + ")"
		case e.By.Person != nil:
			who += " (" + e.By.Person.ID + ")"
		case e.By.Name != "" && e.By.Name != e.By.User:
			who += " (" + e.By.Name + ")"
		}
		parts = append(parts, who)
	}
	if e.Route != "" {
		parts = append(parts, "route "+e.Route)
	}
	if e.Target != nil {
		parts = append(parts, "to "+targetText(*e.Target))
	}
	if e.Prompt > 0 {
		parts = append(parts, fmt.Sprintf("prompt %d", e.Prompt))
	}
	if e.Status != "" {
		parts = append(parts, string(e.Status))
	}
	if e.Choice != "" {
		parts = append(parts, e.Choice)
	}
	if len(e.Voters) > 0 {
		names := make([]string, len(e.Voters))
		for i, v := range e.Voters {
			names[i] = v.Channel + ":" + v.User
		}
		parts = append(parts, "voters "+strings.Join(names, ", "))
	}
	if e.ExpiresAt != nil {
		parts = append(parts, "expires "+e.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if e.Reason != "" {
		parts = append(parts, "["+e.Reason+"]")
	}
	if e.Detail != "" {
		parts = append(parts, "— "+e.Detail)
	}
	return cmdline.Printable(strings.Join(parts, " "), false)
}

func targetText(t client.Target) string {
	if t.Chat == "" {
		return t.Channel
	}
	return t.Channel + ":" + t.Chat
}
