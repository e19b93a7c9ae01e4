package clientcmd

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// run executes one client command line, as bridge would, and returns its
// exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := &cobra.Command{Use: "bridge", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(Commands()...)
	cmdline.WrapRunE(root)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdline.UsageErr("%v", err) })
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(context.Background())
	name := "bridge"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	return cmdline.Report(err, name, stderr)
}
