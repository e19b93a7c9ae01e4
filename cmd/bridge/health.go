package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/spf13/cobra"
)

// newHealthCmd is `bridge health`: the health check of a container image
// that holds nothing but the bridge's binary (deploy/Dockerfile).
func newHealthCmd() *cobra.Command {
	var server string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "health [flags]",
		Short: "Check that a bridge is up (GET /healthz)",
		Long: `Ask a bridge's GET /healthz, which needs no key, and exit 0 when it
answers that it is up. It is the health check of the container image
(deploy/Dockerfile), which has no shell and no curl. The bridge is
--server, else $ASKBRIDGE_SERVER, else http://127.0.0.1:8377.`,
		Example: `  bridge health
  bridge health --server http://127.0.0.1:9000 --timeout 2s`,
		Args: cmdline.Args(0, 0, ""),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if timeout <= 0 {
				return cmdline.UsageErr("--timeout must be above zero, not %s", timeout)
			}
			if server == "" {
				server = os.Getenv("ASKBRIDGE_SERVER")
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			c := client.New(server, "")
			if err := c.Healthy(ctx); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "ok:", c.Server())
			return nil
		},
	}
	cmd.Flags().StringVar(&server, "server", "", "the bridge's `URL` (default $ASKBRIDGE_SERVER, else http://127.0.0.1:8377)")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "give up after this `DURATION`")
	cmdline.WithExitCodes(cmd, cmdline.ExitOK, "the bridge is up", cmdline.ExitBadInput, "bad input (unknown flag, an argument)", cmdline.ExitFailure, "no bridge answered that it is up (down, another server, a wrong address, or the timeout)")
	return cmd
}
