package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/app/clientcmd"
	"github.com/askbridge/askbridge/app/hooks"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// To add a command: write a func that returns a *cobra.Command (Use with
// the synopsis, Short, Long, flags, RunE), in the package of what it does,
// and add it in newRootCmd. Print with cmd.OutOrStdout() and
// cmd.ErrOrStderr(); return nil for exit 0, a plain error for exit 1
// (printed as "bridge X: …"), cmdline.UsageErr(…) for exit 2, or
// cmdline.Exit(n, err) for any other code. Set the exit codes its help
// lists with cmdline.WithExitCodes. docs/cli.md is generated from the
// tree: run `go test ./cmd/bridge -run TestCLIReference -update`.

// newRootCmd builds the command tree of bridge.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "bridge COMMAND [flags]",
		Short: "askbridge: questions from agents to people, answers back",
		Long: `bridge runs the askbridge server and talks to it.

Client commands talk to $ASKBRIDGE_SERVER (default http://127.0.0.1:8377)
with the key in $ASKBRIDGE_KEY; answer and decline use
$ASKBRIDGE_RESPONDER_KEY when it is set. serve and check-config read the
file named by --config or $ASKBRIDGE_CONFIG.`,
		Example: `  bridge serve
  bridge ask --option Postgres --option SQLite "Which database?"
  bridge list
  bridge answer k7m2qx 2`,
		Version:                    versionString(),
		SuggestionsMinimumDistance: 2,
		Args:                       cobra.ArbitraryArgs,
		SilenceErrors:              true,
		SilenceUsage:               true,
		CompletionOptions:          cobra.CompletionOptions{DisableDefaultCmd: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdline.UsageErr("unknown command %q%s", args[0], cmdline.Suggest(cmd, args[0]))
			}
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return cmdline.Exit(cmdline.ExitBadInput, nil)
		},
	}
	root.SetVersionTemplate("bridge {{.Version}}\n")
	// cobra adds -h and -v only as the command runs; added now, they are
	// in the tree that docs/cli.md is generated from.
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.SetUsageTemplate(usageTemplate)
	root.AddCommand(clientcmd.Commands()...)
	root.AddCommand(
		newServeCmd(),
		newMCPCmd(),
		newChannelCmd(),
		hooks.NewCmd(),
		bridgeconfig.NewCheckCmd(),
		newVersionCmd(),
		newHealthCmd(),
		newCompletionCmd(),
	)
	cmdline.WrapRunE(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdline.UsageErr("%v", err) })
	help := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		help(cmd, args)
		fmt.Fprint(cmd.OutOrStdout(), cmdline.ExitCodesHelp(cmd))
	})
	cmdline.WithExitCodes(root, cmdline.ExitOK, "help or version printed", cmdline.ExitBadInput, "no command, or an unknown one")
	return root
}

// run executes one command line and returns its exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd()
	root.SetArgs(append([]string{}, args...))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	name := "bridge"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	return cmdline.Report(err, name, stderr)
}

// usageTemplate is cobra's, with one synopsis line for a command that
// both runs and has subcommands.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{else if .HasAvailableSubCommands}}
  {{.CommandPath}} COMMAND [flags]{{end}}{{if gt (len .Aliases) 0}}

Aliases:
  {{.NameAndAliases}}{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Commands:{{range .Commands}}{{if (or .IsAvailableCommand (eq .Name "help"))}}
  {{rpad .Name .NamePadding }} {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableInheritedFlags}}

Global Flags:
{{.InheritedFlags.FlagUsages | trimTrailingWhitespaces}}{{end}}{{if .HasAvailableSubCommands}}

Use "{{.CommandPath}} COMMAND --help" for more information about a command.{{end}}
`
