package main

import (
	"time"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// mcpConnectTimeout bounds how long `bridge mcp` waits for a connection to
// the bridge; together with mcp.Config.Unreachable it makes ask_user
// report an unreachable bridge within seconds.
const mcpConnectTimeout = 5 * time.Second

// mcpClient is the client of `bridge mcp`: the bridge at $ASKBRIDGE_SERVER
// with $ASKBRIDGE_KEY, with a bounded connect.
func mcpClient() *client.Client {
	c := cmdline.NewClient(false)
	c.SetConnectTimeout(mcpConnectTimeout)
	return c
}
