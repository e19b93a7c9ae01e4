//go:build !linux

package cmdlinetest

import (
	"os"
	"testing"
)

// PTY is a pseudo-terminal; this system's tests have none.
type PTY struct{ Term *os.File }

// Open skips the test: pseudo-terminals are opened on Linux only.
func Open(t testing.TB, cols int) *PTY {
	t.Skip("pseudo-terminals are opened on Linux only")
	return nil
}

// Output is never reached.
func (p *PTY) Output() string { return "" }

// WaitFor is never reached.
func (p *PTY) WaitFor(t testing.TB, s string) {}
