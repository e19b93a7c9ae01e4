//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cmdline

import (
	"syscall"
	"unsafe"
)

// terminalWidth asks the terminal at fd for its size: the ioctl succeeds
// only on a terminal.
func terminalWidth(fd uintptr) (int, bool) {
	var ws struct{ Row, Col, X, Y uint16 }
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(syscall.TIOCGWINSZ), uintptr(unsafe.Pointer(&ws))); e != 0 {
		return 0, false
	}
	return int(ws.Col), true
}
