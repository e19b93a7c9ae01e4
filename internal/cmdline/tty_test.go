package cmdline_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/internal/cmdline/cmdlinetest"
)

// A terminal is told from a pipe or a buffer, with its width; colours
// are off with NO_COLOR set.
func TestTerminalOf(t *testing.T) {
	pty := cmdlinetest.Open(t, 97)
	t.Setenv("NO_COLOR", "")
	term, ok := cmdline.TerminalOf(pty.Term)
	if !ok || term.Width != 97 || !term.Color {
		t.Fatalf("a terminal of 97 columns: %+v, %v", term, ok)
	}
	if got := term.Paint("1", "k7m2qx"); got != "\x1b[1mk7m2qx\x1b[0m" {
		t.Fatalf("Paint: %q", got)
	}
	t.Setenv("NO_COLOR", "1")
	if term, _ := cmdline.TerminalOf(pty.Term); term.Color || term.Paint("1", "x") != "x" {
		t.Fatalf("colours with NO_COLOR set: %+v", term)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, ok := cmdline.TerminalOf(w); ok {
		t.Fatal("a pipe is taken for a terminal")
	}
	if _, ok := cmdline.TerminalOf(&bytes.Buffer{}); ok {
		t.Fatal("a buffer is taken for a terminal")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if _, ok := cmdline.TerminalOf(null); ok {
		t.Fatal("/dev/null is taken for a terminal")
	}
}
