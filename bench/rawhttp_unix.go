//go:build unix

package bench

import (
	"errors"
	"net"
	"syscall"
)

// closedByPeer reports whether an idle connection can no longer carry a
// request: the peer closed it, it holds bytes nobody asked for, or it
// failed. It peeks without blocking and without consuming anything.
func closedByPeer(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	open := false
	err = raw.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing to read yet is the only state of a healthy idle
		// connection; 0 bytes is the peer's close, any byte a stray.
		open = errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EWOULDBLOCK)
		return true
	})
	return err != nil || !open
}
