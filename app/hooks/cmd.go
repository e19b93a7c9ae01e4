package hooks

import (
	"fmt"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// NewCmd is `bridge hook`: the permission and question hooks of coding
// agents, and their installation in the agents' settings.
func NewCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hook claude|codex|install|uninstall",
		Short: "Coding agents' permission prompts and questions, answered from chat",
		Long: `The hooks of Claude Code and Codex: the agent runs "bridge hook claude" or
"bridge hook codex" with its event JSON on standard input; the hook asks
people through the bridge and prints the agent's decision JSON. No
decision (timeout, cancelled, bridge down) prints nothing and exits 0: the
agent then shows its own dialog. "bridge hook install" adds the hook to an
agent's settings file, "bridge hook uninstall" removes exactly that.

` + cmdline.ClientEnv,
		Args: cmdline.Args(1, -1, "hook (claude, codex, install or uninstall)"),
		RunE: func(cmd *cobra.Command, a []string) error {
			return cmdline.UsageErr("unknown hook %q%s", a[0], cmdline.Suggest(cmd, a[0]))
		},
	}
	cmd.AddCommand(
		newAgentHookCmd(claudeAgent, "Claude Code's PermissionRequest and AskUserQuestion hook, its Elicitation hook (other MCP servers' forms), and its reports of prompts answered at the terminal"),
		newAgentHookCmd(codexAgent, "Codex's PermissionRequest hook"),
		newHookInstallCmd(false),
		newHookInstallCmd(true),
	)
	return cmd
}

// newAgentHookCmd is `bridge hook claude` or `bridge hook codex`. Its bad
// command lines exit 1, never 2: both agents read exit 2 as a denial.
func newAgentHookCmd(h agentHook, short string) *cobra.Command {
	var o hookOptions
	cmd := &cobra.Command{
		Use:   h.name + " [flags]",
		Short: short,
		Long: short + `: reads the agent's event JSON on standard input, asks people
through the bridge, and prints the agent's decision JSON on standard
output. It never allows by default: with no decision it prints nothing.`,
		Example: "  bridge hook " + h.name + " --timeout 20m",
		Args: func(cmd *cobra.Command, a []string) error {
			if len(a) > 0 {
				return cmdline.Exit(cmdline.ExitFailure, fmt.Errorf("takes no arguments, got %q", a))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdline.Exit(runAgentHook(h, o, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr()), nil)
		},
	}
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdline.Exit(cmdline.ExitFailure, err) })
	cmd.Flags().DurationVar(&o.timeout, "timeout", defaultHookTimeout, "how long people have to answer (10s–7d); keep it below the hook's timeout in the agent's settings")
	cmd.Flags().DurationVar(&o.connectTimeout, "connect-timeout", defaultHookConnectTimeout, "give up when the bridge cannot be reached within this long")
	cmd.Flags().StringVar(&o.route, "route", "", "the route to post to (default: default)")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "a decision printed, or none (the agent's own dialog decides, as for a form chat cannot take)", cmdline.ExitFailure, "bad flags, or an event it cannot read (the agent's own dialog asks)")
	return cmd
}

// newHookInstallCmd is `bridge hook install` (remove false) or
// `bridge hook uninstall`.
func newHookInstallCmd(remove bool) *cobra.Command {
	verb, what := "install", "Add the hook to an agent's settings file, keeping every other setting"
	if remove {
		verb, what = "uninstall", "Remove exactly the hook that install added from an agent's settings file"
	}
	var (
		project, local bool
		command        string
	)
	cmd := &cobra.Command{
		Use:     verb + " claude|codex [flags]",
		Short:   what,
		Long:    what + ". It prints what it changed; a second " + verb + " changes nothing and says so. A malformed settings file is an error and stays untouched.",
		Example: "  bridge hook " + verb + " claude --project",
		Args:    cmdline.Args(1, 1, "agent (claude or codex)"),
		RunE: func(cmd *cobra.Command, a []string) error {
			return cmdline.Exit(runHookInstall(a[0], project, local, command, bridgeExecutable(), cmd.OutOrStdout(), cmd.ErrOrStderr(), remove), nil)
		},
	}
	cmd.Flags().BoolVar(&project, "project", false, "the project's shared settings in the current directory instead of your user settings")
	cmd.Flags().BoolVar(&local, "local", false, "the project's personal settings, .claude/settings.local.json (Claude Code only)")
	cmd.Flags().StringVar(&command, "command", "", `the hook command to write (default: this bridge's path + " hook AGENT"; needed when the bridge runs from go run)`)
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "settings written (or already as wanted)", cmdline.ExitBadInput, "bad input: unknown agent, malformed settings file (left untouched)")
	return cmd
}
