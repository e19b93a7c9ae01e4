package cmdline

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes of the bridge command line: 0 answered (or done), 3
// declined, 4 timed out, 5 cancelled, 6 unsupported, 2 bad input, 1 other
// failure.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitBadInput    = 2
	ExitDeclined    = 3
	ExitTimedOut    = 4
	ExitCancelled   = 5
	ExitUnsupported = 6
	// ExitInterrupted is a blocking command stopped by Ctrl-C or
	// SIGTERM (128 + SIGINT, as shells report it).
	ExitInterrupted = 130
)

// ExitError ends a command with an exit code; Err, when not nil, is
// printed on standard error after the command's name.
type ExitError struct {
	Code  int
	Err   error
	Usage bool // point to --help after the message
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the error the exit carries.
func (e *ExitError) Unwrap() error { return e.Err }

// Report prints what ended the command named name on stderr and returns
// its exit code: a command's ExitError as it says, any other error (one
// that cobra found before the command ran: a missing argument, a required
// flag) as bad input.
func Report(err error, name string, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if !errors.As(err, &ee) {
		ee = &ExitError{Code: ExitBadInput, Err: err, Usage: true}
	}
	if ee.Err != nil {
		// Errors may carry the server's or a person's text: nothing in
		// them reaches the terminal raw.
		fmt.Fprintf(stderr, "%s: %s\n", name, Printable(ee.Err.Error(), true))
	}
	if ee.Usage {
		fmt.Fprintf(stderr, "Run \"%s --help\" for usage.\n", name)
	}
	return ee.Code
}

// Suggest returns cobra's "Did you mean" for a mistyped command.
func Suggest(root *cobra.Command, typed string) string {
	s := root.SuggestionsFor(typed)
	if len(s) == 0 {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", s[0])
}

// Exit ends a command with code, printing err if it is not nil.
func Exit(code int, err error) error { return &ExitError{Code: code, Err: err} }

// UsageErr is bad input on the command line: exit 2, with a pointer to
// the command's help.
func UsageErr(format string, a ...any) error {
	return &ExitError{Code: ExitBadInput, Err: fmt.Errorf(format, a...), Usage: true}
}

// failure wraps a command's plain errors as exit 1, so that RunE may
// return any error.
func failure(run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		var ee *ExitError
		if err == nil || errors.As(err, &ee) {
			return err
		}
		return Exit(ExitFailure, err)
	}
}

// Args checks the number of positional arguments, saying what is
// missing or extra in the words of the command's synopsis.
func Args(minN, maxN int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		switch {
		case len(a) < minN:
			return UsageErr("missing %s (usage: %s)", what, cmd.UseLine())
		case maxN >= 0 && len(a) > maxN:
			return UsageErr("unexpected argument %q (usage: %s)", a[maxN], cmd.UseLine())
		}
		return nil
	}
}

const exitCodesKey = "exit_codes"

// WithExitCodes records what cmd's exit codes mean, as pairs of code and
// meaning; help and docs/cli.md list them.
func WithExitCodes(cmd *cobra.Command, pairs ...any) {
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
var defaultExitCodes = fmt.Sprintf("  %d  done\n  %d  bad input (unknown flag, missing argument)\n  %d  failure\n", ExitOK, ExitBadInput, ExitFailure)

// ResultExitCodes are those of the commands that print a question's
// result, with answered as the meaning of exit 0.
func ResultExitCodes(answered string) []any {
	return []any{
		ExitOK, answered,
		ExitDeclined, "declined",
		ExitTimedOut, "timed out (the result says whether defaults were used)",
		ExitCancelled, "cancelled",
		ExitUnsupported, "unsupported (no channel could take the question)",
		ExitBadInput, "bad input (unknown flag, missing argument, a question the server refuses)",
		ExitFailure, "other failure (the bridge cannot be reached, a wrong key)",
	}
}

// ExitCodes returns the exit code list of cmd.
func ExitCodes(cmd *cobra.Command) string {
	if s := cmd.Annotations[exitCodesKey]; s != "" {
		return s
	}
	return defaultExitCodes
}

// ExitCodesHelp is the section that help prints after the flags.
func ExitCodesHelp(cmd *cobra.Command) string {
	return "\nExit codes:\n" + ExitCodes(cmd)
}

// WrapRunE makes every command of the tree return its plain errors as
// exit 1.
func WrapRunE(cmd *cobra.Command) {
	if cmd.RunE != nil {
		cmd.RunE = failure(cmd.RunE)
	}
	for _, c := range cmd.Commands() {
		WrapRunE(c)
	}
}
