package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// To add a command: write a func newXCmd() *cobra.Command (Use with the
// synopsis, Short, Long, flags, RunE) and append it to the list in
// newRootCmd. Print with cmd.OutOrStdout() and cmd.ErrOrStderr(); return
// nil for exit 0, a plain error for exit 1 (printed as "bridge X: …"),
// usageErr(…) for exit 2, or exitCode(n, err) for any other code. Set the
// exit codes its help lists with withExitCodes. docs/cli.md is generated
// from the tree: run `go test ./cmd/bridge -run TestCLIReference -update`.

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
				return usageErr("unknown command %q%s", args[0], suggest(cmd, args[0]))
			}
			cmd.SetOut(cmd.ErrOrStderr())
			_ = cmd.Help()
			return exitCode(exitBadInput, nil)
		},
	}
	root.SetVersionTemplate("bridge {{.Version}}\n")
	root.SetUsageTemplate(usageTemplate)
	root.AddCommand(
		newServeCmd(),
		newAskCmd(),
		newAnswerCmd(),
		newDeclineCmd(),
		newWaitCmd(),
		newListCmd(),
		newCancelCmd(),
		newAuditCmd(),
		newEventsCmd(),
		newMCPCmd(),
		newHookCmd(),
		newCheckConfigCmd(),
		newVersionCmd(),
		newCompletionCmd(),
	)
	wrapRunE(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr("%v", err) })
	help := root.HelpFunc()
	root.SetHelpFunc(func(cmd *cobra.Command, args []string) {
		help(cmd, args)
		fmt.Fprint(cmd.OutOrStdout(), exitCodesHelp(cmd))
	})
	withExitCodes(root, exitOK, "help or version printed", exitBadInput, "no command, or an unknown one")
	return root
}

// suggest returns cobra's "Did you mean" for a mistyped command.
func suggest(root *cobra.Command, typed string) string {
	s := root.SuggestionsFor(typed)
	if len(s) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", s[0])
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
	if err == nil {
		return exitOK
	}
	name := "bridge"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		// Errors that cobra finds before a command runs (a missing
		// argument, a required flag) are bad input.
		ee = &exitError{code: exitBadInput, err: err, usage: true}
	}
	if ee.err != nil {
		// Errors may carry the server's or a person's text: nothing in
		// them reaches the terminal raw.
		fmt.Fprintf(stderr, "%s: %s\n", name, printable(ee.err.Error(), true))
	}
	if ee.usage {
		fmt.Fprintf(stderr, "Run \"%s --help\" for usage.\n", name)
	}
	return ee.code
}

// exitError ends a command with an exit code; err, when not nil, is
// printed on standard error after the command's name.
type exitError struct {
	code  int
	err   error
	usage bool // point to --help after the message
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exitCode ends a command with code, printing err if it is not nil.
func exitCode(code int, err error) error { return &exitError{code: code, err: err} }

// usageErr is bad input on the command line: exit 2, with a pointer to
// the command's help.
func usageErr(format string, a ...any) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf(format, a...), usage: true}
}

// failure wraps a command's plain errors as exit 1, so that RunE may
// return any error.
func failure(run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		var ee *exitError
		if err == nil || errors.As(err, &ee) {
			return err
		}
		return exitCode(exitFailure, err)
	}
}

// args checks the number of positional arguments, saying what is
// missing or extra in the words of the command's synopsis.
func args(minN, maxN int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		switch {
		case len(a) < minN:
			return usageErr("missing %s (usage: %s)", what, cmd.UseLine())
		case maxN >= 0 && len(a) > maxN:
			return usageErr("unexpected argument %q (usage: %s)", a[maxN], cmd.UseLine())
		}
		return nil
	}
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

const exitCodesKey = "exit_codes"

// withExitCodes records what cmd's exit codes mean, as pairs of code and
// meaning; help and docs/cli.md list them.
func withExitCodes(cmd *cobra.Command, pairs ...any) {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		fmt.Fprintf(&b, "  %d  %s\n", pairs[i], pairs[i+1])
	}
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[exitCodesKey] = b.String()
}

// defaultExitCodes are those of a command that names none of its own.
var defaultExitCodes = fmt.Sprintf("  %d  done\n  %d  bad input (unknown flag, missing argument)\n  %d  failure\n", exitOK, exitBadInput, exitFailure)

// resultExitCodes are those of the commands that print a question's
// result.
var resultExitCodes = []any{
	exitOK, "answered (or still pending, with --pending)",
	exitDeclined, "declined",
	exitTimedOut, "timed out (the result says whether defaults were used)",
	exitCancelled, "cancelled",
	exitUnsupported, "unsupported (no channel could take the question)",
	exitBadInput, "bad input (unknown flag, missing argument, a question the server refuses)",
	exitFailure, "other failure (the bridge cannot be reached, a wrong key)",
}

// exitCodes returns the exit code list of cmd.
func exitCodes(cmd *cobra.Command) string {
	if s := cmd.Annotations[exitCodesKey]; s != "" {
		return s
	}
	return defaultExitCodes
}

// exitCodesHelp is the section that help prints after the flags.
func exitCodesHelp(cmd *cobra.Command) string {
	return "\nExit codes:\n" + exitCodes(cmd)
}

// wrapRunE makes every command of the tree return its plain errors as
// exit 1.
func wrapRunE(cmd *cobra.Command) {
	if cmd.RunE != nil {
		cmd.RunE = failure(cmd.RunE)
	}
	for _, c := range cmd.Commands() {
		wrapRunE(c)
	}
}
