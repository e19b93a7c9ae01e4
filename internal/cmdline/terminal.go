package cmdline

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Text from questions and answers is written by agents and people; the
// CLI prints it into someone's terminal. Nothing in it that a terminal
// would act on (ESC sequences, other control characters) or that would
// reorder or hide what is shown (bidirectional controls, zero-width
// characters) is printed raw: it is shown as a visible escape instead.

// Printable returns s with every rune that is not graphic shown as an
// escape: "\x1b", "\u202e", "\n". With keepNewlines, newlines stay, for
// text of several lines such as a command's reply.
func Printable(s string, keepNewlines bool) string {
	if isPlain(s, keepNewlines) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNewlines:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case unicode.IsGraphic(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

// isPlain reports whether Printable(s) would return s unchanged.
func isPlain(s string, keepNewlines bool) bool {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return false
		}
		if !(unicode.IsGraphic(r) || r == '\n' && keepNewlines) {
			return false
		}
	}
	return true
}

// JSONTerminal writes JSON for a terminal: every rune that is not
// graphic, which encoding/json leaves raw (DEL, C1 controls, bidirectional
// and zero-width characters), becomes a \uXXXX escape. The JSON means the
// same; only its spelling changes. Outside strings a JSON document holds
// only ASCII, so the newlines and spaces between its tokens stay. Each
// Write must hold whole runes, as json.Encoder's one Write per value does.
type JSONTerminal struct{ W io.Writer }

// Write writes p with its non-graphic runes escaped.

func (j JSONTerminal) Write(p []byte) (int, error) {
	s := string(p)
	if isPlain(s, true) {
		return j.W.Write(p)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || unicode.IsGraphic(r):
			b.WriteRune(r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		}
	}
	if _, err := io.WriteString(j.W, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
