package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/broker"
)

// MCPConfig configures the MCP endpoint of bridge serve.
type MCPConfig struct{}

// mountMCP mounts the streamable HTTP MCP endpoint.
func mountMCP(cfg Config, b *broker.Broker, srv *api.Server, log *slog.Logger) error {
	_, _, _, _ = cfg, b, srv, log
	return nil
}

func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	_, _, _ = args, stdin, stdout
	fmt.Fprintln(stderr, "bridge mcp: not built yet")
	return exitFailure
}
