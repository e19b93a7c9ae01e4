//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package cmdline

// terminalWidth reports no terminal where this build cannot ask.
func terminalWidth(uintptr) (int, bool) { return 0, false }
