package main

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/askbridge/askbridge/client"
)

// mcpConnectTimeout bounds how long `bridge mcp` waits for a connection to
// the bridge; together with mcp.Config.Unreachable it makes ask_user
// report an unreachable bridge within seconds.
const mcpConnectTimeout = 5 * time.Second

// mcpClient is the client of `bridge mcp`: the bridge at $ASKBRIDGE_SERVER
// with $ASKBRIDGE_KEY, with a bounded connect.
func mcpClient() *client.Client {
	c := newClient(false)
	c.SetConnectTimeout(mcpConnectTimeout)
	return c
}

// envSwitch reads a boolean environment variable: 1, true, yes or on
// (any case) turn it on; unset, empty or anything else leave it off.
func envSwitch(name string) bool {
	v := os.Getenv(name)
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return strings.EqualFold(v, "yes") || strings.EqualFold(v, "on")
}
