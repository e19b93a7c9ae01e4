//go:build linux

package cmdlinetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// PTY is a pseudo-terminal: a command writes to Term as it would to a
// person's terminal, and the test reads what the person would see.
type PTY struct {
	// Term is the terminal end, to hand a command as its output.
	Term *os.File
	ptm  *os.File
	read chan []byte
}

// Open opens a pseudo-terminal cols columns wide, closed when the test
// ends. It skips the test where the system has none to give.
func Open(t testing.TB, cols int) *PTY {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	var unlock int32
	var n uint32
	if err := ioctl(ptm, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		ptm.Close()
		t.Skipf("no pseudo-terminal here: unlock: %v", err)
	}
	if err := ioctl(ptm, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		ptm.Close()
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	term, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ptm.Close()
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	ws := struct{ Row, Col, X, Y uint16 }{Row: 24, Col: uint16(cols)}
	if err := ioctl(term, syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		t.Fatalf("set the terminal's size: %v", err)
	}
	p := &PTY{Term: term, ptm: ptm, read: make(chan []byte, 1)}
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, ptm) // ends with EIO once the terminal end is closed
		p.read <- b.Bytes()
	}()
	t.Cleanup(func() { term.Close(); ptm.Close() })
	return p
}

// Output closes the terminal end and returns everything written to it,
// with the terminal's "\r\n" line ends turned back into "\n".
func (p *PTY) Output() string {
	p.Term.Close()
	b := <-p.read
	return string(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")))
}

func ioctl(f *os.File, req uint, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(arg)); e != 0 {
		return errors.New(e.Error())
	}
	return nil
}
