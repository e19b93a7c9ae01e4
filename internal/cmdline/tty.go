package cmdline

import (
	"io"
	"os"
)

// What a command prints for a person watching (the progress of ask,
// colours, a table cut to the window) goes only to a terminal: on a pipe
// or in a file the output stays plain and whole, for programs.

// Terminal is a writer that is a terminal.
type Terminal struct {
	// Width is its width in columns; 0 when the terminal does not say.
	Width int
	// Color reports whether colours may be used: not when NO_COLOR is set
	// to anything but the empty string (no-color.org).
	Color bool
}

// TerminalOf reports whether w is a terminal, and what it is.
func TerminalOf(w io.Writer) (Terminal, bool) {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return Terminal{}, false
	}
	cols, ok := terminalWidth(f.Fd())
	if !ok {
		return Terminal{}, false
	}
	return Terminal{Width: cols, Color: os.Getenv("NO_COLOR") == ""}, true
}

// Paint wraps s in the SGR code (such as "1" for bold, "32" for green)
// when the terminal takes colours, and returns s alone when not.
func (t Terminal) Paint(code, s string) string {
	if !t.Color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}
