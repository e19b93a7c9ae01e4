//go:build !unix

package callback

import (
	"net"
	"testing"
)

// refusedAddr returns a loopback address where nothing listens: a port
// opened and closed again.
func refusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
