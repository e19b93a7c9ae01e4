package main

import (
	"fmt"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// newVersionCmd is `bridge version`.
func newVersionCmd() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "version [flags]",
		Short: "Print the version",
		Long:  `Print the version of bridge, the commit it was built from and the Go version.`,
		Args:  cmdline.Args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if jsonOut {
				cmdline.PrintJSON(cmd.OutOrStdout(), readBuildInfo())
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout(), "bridge", versionString())
			return nil
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, `print {"version","revision","go"} as JSON`)
	return cmd
}
