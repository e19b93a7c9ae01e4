//go:build linux

package cmdlinetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// PTY is a pseudo-terminal: a command writes to Term as it would to a
// person's terminal, and the test reads what the person would see.
type PTY struct {
	// Term is the terminal end, to hand a command as its output.
	Term *os.File
	ptm  *os.File
	out  buffer
	done chan struct{}
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
	p := &PTY{Term: term, ptm: ptm, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		_, _ = io.Copy(&p.out, ptm) // ends with EIO once the terminal end is closed
	}()
	t.Cleanup(func() { term.Close(); ptm.Close() })
	return p
}

// WaitFor waits until the terminal has shown s, and fails the test when
// it has not within a minute.
func (p *PTY) WaitFor(t testing.TB, s string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(p.out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal did not show %q:\n%s", s, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Output closes the terminal end and returns everything written to it,
// with the terminal's "\r\n" line ends turned back into "\n".
func (p *PTY) Output() string {
	p.Term.Close()
	<-p.done
	return strings.ReplaceAll(p.out.String(), "\r\n", "\n")
}

// buffer is a bytes.Buffer safe for one writer and readers.
type buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func ioctl(f *os.File, req uint, arg unsafe.Pointer) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(arg)); e != 0 {
		return errors.New(e.Error())
	}
	return nil
}
