package testutil

import (
	"net"
	"testing"
)

// TCPService listens on loopback until the test ends and handles each
// connection with serve on a goroutine of its own, closing it after.
// It returns the listener's address.
func TCPService(t testing.TB, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String()
}
