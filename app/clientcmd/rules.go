package clientcmd

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// rulesHint is said with a 404 for a rule id.
const rulesHint = `Run "bridge rules list" to see the ids of the agent's rules.`

// newRulesCmd is `bridge rules`: the approval rules the bridge keeps.
func newRulesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List or revoke the approval rules the bridge keeps",
		Long: `The approval rules the bridge keeps: a tool call one matches is allowed by
bridge hook claude|codex without asking anyone. A person makes one by
picking "Always allow" on a permission question (see docs/agents.md).

` + cmdline.ClientEnv,
		Args: cmdline.Args(0, 0, "a subcommand (list, revoke)"),
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newRulesListCmd(), newRulesRevokeCmd())
	return cmd
}

func newRulesListCmd() *cobra.Command {
	var jsonOut, revoked bool
	cmd := &cobra.Command{
		Use:   "list [flags]",
		Short: "List the rules in force for the agent",
		Long: `List the rules in force for the agent of $ASKBRIDGE_KEY: its own and those of
every agent, one line each (id, tool, kind, pattern, project, who made it and
when), or as JSON with --json. --revoked adds the revoked ones.

` + cmdline.ClientEnv,
		Example: `  bridge rules list
  bridge rules list --json --revoked`,
		Args: cmdline.Args(0, 0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			rules, err := cmdline.NewClient(false).Rules(cmd.Context(), revoked)
			if err != nil {
				return cmdline.ClientError(err, "")
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				if rules == nil {
					rules = []client.Rule{}
				}
				cmdline.PrintJSON(out, map[string]any{"rules": rules})
				return nil
			}
			printRules(out, rules)
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the rules as JSON")
	cmd.Flags().BoolVar(&revoked, "revoked", false, "list the revoked rules too")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "printed", cmdline.ExitBadInput, "bad input (unknown flag)", cmdline.ExitFailure, "the bridge cannot be reached or refused the key")
	return cmd
}

func newRulesRevokeCmd() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "revoke [flags] ID",
		Short: "Revoke one of the agent's rules",
		Long: `Revoke the rule ID: from then on it allows nothing, and calls it matched are
asked again. An agent's key revokes only that agent's rules; a rule of every
agent is revoked from the web inbox. Prints the rule revoked, as JSON with
--json.

` + cmdline.ClientEnv,
		Example: `  bridge rules revoke 3`,
		Args:    cmdline.Args(1, 1, "the rule's ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id < 1 {
				return cmdline.UsageErr("%q is not a rule ID (a number from 1)", args[0])
			}
			r, err := cmdline.NewClient(false).RevokeRule(cmd.Context(), id)
			if err != nil {
				return cmdline.ClientError(err, rulesHint)
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				cmdline.PrintJSON(out, r)
				return nil
			}
			fmt.Fprintf(out, "revoked rule %d: %s\n", r.ID, cmdline.Printable(ruleText(*r), false))
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the rule as JSON")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "revoked (or revoked before)", cmdline.ExitBadInput, "bad input (unknown flag, an ID that is not a number)", cmdline.ExitFailure, "no such rule of this agent, or the bridge cannot be reached")
	return cmd
}

// printRules writes one line per rule.
func printRules(w io.Writer, rules []client.Rule) {
	if len(rules) == 0 {
		fmt.Fprintln(w, "no rules")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tAGENT\tRULE\tBY\tAT\tREVOKED")
	for _, r := range rules {
		agent := r.Agent
		if agent == "" {
			agent = "(every agent)"
		}
		revoked := ""
		if r.Revoked != nil {
			revoked = r.Revoked.Local().Format("2006-01-02 15:04")
		}
		by := r.By.Name
		if r.By.Person != nil {
			by = r.By.Person.ID
		}
		if by == "" {
			by = r.By.Channel + ":" + r.By.User
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", r.ID, cmdline.Printable(agent, false), cmdline.Printable(ruleText(r), false),
			cmdline.Printable(by, false), r.At.Local().Format("2006-01-02 15:04"), revoked)
	}
	tw.Flush()
}

// ruleText says what a rule allows: "Bash prefix `npm test` in /src/app".
func ruleText(r client.Rule) string {
	s := fmt.Sprintf("%s %s `%s`", r.Tool, r.Kind, r.Pattern)
	if r.Project != "" {
		s += " in " + r.Project
	}
	return s
}
