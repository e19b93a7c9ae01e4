package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// newCompletionCmd is `bridge completion SHELL`: the shell's completion
// script for bridge, its commands and flags.
func newCompletionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script of bridge for a shell, so that commands and
flags complete with Tab. The bash script needs the bash-completion package
(apt install bash-completion, dnf install bash-completion, brew install
bash-completion@2): completion says so when it is not installed, and so
does Tab in a shell without it.`,
		Example: `  source <(bridge completion bash)          # bash, this shell
  bridge completion zsh > "${fpath[1]}/_bridge"   # zsh, new shells
  bridge completion fish > ~/.config/fish/completions/bridge.fish`,
		ValidArgs:             []string{"bash", "zsh", "fish", "powershell"},
		DisableFlagsInUseLine: true,
		Args: func(cmd *cobra.Command, a []string) error {
			if err := cmdline.Args(1, 1, "the shell: bash, zsh, fish or powershell")(cmd, a); err != nil {
				return err
			}
			if err := cobra.OnlyValidArgs(cmd, a); err != nil {
				return cmdline.UsageErr("%q is not a shell this knows: use bash, zsh, fish or powershell", a[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, a []string) error {
			root, out := cmd.Root(), cmd.OutOrStdout()
			switch a[0] {
			case "bash":
				if !bashCompletionInstalled() {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s: %s\n", cmd.CommandPath(), bashCompletionMissing)
				}
				return genBashCompletion(root, out)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			}
			return root.GenPowerShellCompletionWithDesc(out)
		},
	}
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "the script was printed", cmdline.ExitBadInput, "no shell, or one this does not know")
	return cmd
}

// bashCompletionMissing is what completion says on standard error where
// the bash-completion package is not installed, and bashCompletionUnloaded
// what Tab says in a shell that has not loaded it.
const (
	bashCompletionMissing  = "the bash script needs the bash-completion package, which is not installed here: install it (apt install bash-completion, dnf install bash-completion, brew install bash-completion@2) and open a new shell"
	bashCompletionUnloaded = "bridge: Tab completion needs the bash-completion package, which this shell has not loaded: install it (apt install bash-completion, dnf install bash-completion, brew install bash-completion@2) and open a new shell"
)

// bashCompletionFiles are where the bash-completion package puts its
// script on Linux distributions and Homebrew.
var bashCompletionFiles = []string{
	"/usr/share/bash-completion/bash_completion",
	"/etc/bash_completion",
	"/usr/local/share/bash-completion/bash_completion",
	"/usr/local/etc/profile.d/bash_completion.sh",
	"/opt/homebrew/etc/profile.d/bash_completion.sh",
}

// bashCompletionInstalled reports whether the bash-completion package is
// installed on this machine.
func bashCompletionInstalled() bool {
	for _, f := range bashCompletionFiles {
		if _, err := os.Stat(f); err == nil {
			return true
		}
	}
	return false
}

// bashWordsCall is the line of cobra's bash script that needs the
// bash-completion package; genBashCompletion guards it.
const bashWordsCall = `    _get_comp_words_by_ref "$@" cur prev words cword`

// genBashCompletion writes cobra's bash script, in which Tab says that
// the bash-completion package is missing rather than failing with
// "_get_comp_words_by_ref: command not found".
func genBashCompletion(root *cobra.Command, w io.Writer) error {
	var b bytes.Buffer
	if err := root.GenBashCompletionV2(&b, true); err != nil {
		return err
	}
	script := b.String()
	if !strings.Contains(script, bashWordsCall) {
		return errors.New("the bash script of this cobra version has no _get_comp_words_by_ref call to guard")
	}
	guard := "    if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then\n" +
		"        printf '\\n%s\\n' " + shellQuote(bashCompletionUnloaded) + " >&2\n" +
		"        return 1\n" +
		"    fi\n"
	_, err := io.WriteString(w, strings.Replace(script, bashWordsCall, guard+bashWordsCall, 1))
	return err
}

// shellQuote quotes s for bash in single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
