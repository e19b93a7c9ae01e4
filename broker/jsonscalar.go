package broker

import (
	"encoding/json"
	"time"
	"unicode/utf8"
)

// The scalars of the hand-written JSON (jsonenc.go): strings, with and
// without HTML escaping, and times, as encoding/json writes them.

// AppendTime appends t as time.Time's MarshalJSON writes it (RFC 3339
// with the nanoseconds it has), and reports false, appending nothing,
// for what that refuses: a year outside 0–9999, or a zone offset that is
// not whole minutes.
func AppendTime(b []byte, t time.Time) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return nil, false
	}
	if _, off := t.Zone(); off%60 != 0 || off <= -24*3600 || off >= 24*3600 {
		return nil, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}

// appendMarshaled writes v as json.Marshal does.
func appendMarshaled(b []byte, v any) ([]byte, bool) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return append(b, data...), true
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string as json.Marshal does: quotes,
// backslashes and control characters escaped, the HTML characters <, >
// and & as \u003c, \u003e and \u0026, U+2028 and U+2029 escaped, and
// each byte that is not part of valid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte { return appendJSONString(b, s, &htmlSafe) }

// AppendString appends s as json.Marshal writes a string (appendString).
func AppendString(b []byte, s string) []byte { return appendString(b, s) }

// AppendText appends s as a JSON string as an encoding/json Encoder with
// SetEscapeHTML(false) writes it: appendString's rules, but <, > and &
// as they are. The API writes the text of its answers so.
func AppendText(b []byte, s string) []byte { return appendJSONString(b, s, &textSafe) }

// htmlSafe and textSafe hold the ASCII bytes a JSON string carries as
// they are, with and without HTML escaping.
var htmlSafe, textSafe = func() (h, t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
		h[c] = t[c] && c != '<' && c != '>' && c != '&'
	}
	return h, t
}()

func appendJSONString(b []byte, s string, safe *[utf8.RuneSelf]bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
