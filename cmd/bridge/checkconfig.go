package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// newCheckConfigCmd is `bridge check-config`: load and check the
// configuration as serve would, without starting.
func newCheckConfigCmd() *cobra.Command {
	var (
		f       serveFlags
		jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "check-config [flags]",
		Short: "Check the configuration without starting",
		Long: `Load the configuration as serve would (the file, then the flags) and
check it without starting anything: say what is wrong, or summarise it.`,
		Example: `  bridge check-config --config askbridge.yaml`,
		Args:    args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := configFor(f)
			if err != nil {
				return exitCode(exitBadInput, err)
			}
			channels := slices.Sorted(maps.Keys(cfg.enabledChannels()))
			if jsonOut {
				printJSON(cmd.OutOrStdout(), map[string]any{"ok": true, "listen": cfg.Listen, "store": storeName(cfg), "routes": len(cfg.Routes), "channels": channels})
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "config OK: listen %s, store %s, %d route(s), channels: %s\n", cfg.Listen, storeName(cfg), len(cfg.Routes), strings.Join(channels, ", "))
			return nil
		},
	}
	addServeFlags(cmd, &f)
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the summary as JSON")
	withExitCodes(cmd, exitOK, "the configuration is valid", exitBadInput, "it has problems (each is listed on standard error)")
	return cmd
}
