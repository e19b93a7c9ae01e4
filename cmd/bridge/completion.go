package main

import (
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
flags complete with Tab.`,
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
				return root.GenBashCompletionV2(out, true)
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
