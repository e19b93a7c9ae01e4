package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Go's JSON decoder silently turns invalid UTF-8 inside a string into
// U+FFFD, so a body is checked before it is used: text that is not UTF-8
// is refused, with the field it is in, rather than stored altered.

// invalidUTF8 returns the message of a 400 and the JSON path of the field
// ("questions[0].options[1].label") when data, a valid JSON document,
// holds invalid UTF-8, or "" when it does not.
func invalidUTF8(data []byte) (msg, field string) {
	if utf8.Valid(data) {
		return "", ""
	}
	at := firstInvalid(data)
	field = jsonPathAt(data, int64(at))
	msg = fmt.Sprintf("the request body is not valid UTF-8 (byte 0x%02x at offset %d)", data[at], at)
	if field != "" {
		msg = fmt.Sprintf("%s: is not valid UTF-8 (byte 0x%02x)", field, data[at])
	}
	return msg, field
}

// firstInvalid returns the offset of the first byte of data that is not
// part of a valid UTF-8 sequence, or -1.
func firstInvalid(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return -1
}

// pathFrame is one open object or array on the way to a value.
type pathFrame struct {
	array     bool
	key       string
	index     int
	expectKey bool
}

// jsonPathAt returns the path of the string token of data that holds byte
// offset at, or "" when no string does.
func jsonPathAt(data []byte, at int64) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	var stack []*pathFrame
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		end := dec.InputOffset()
		inside := at >= start && at < end
		var top *pathFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && !top.array && top.expectKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				afterValue(stack)
				continue
			}
			top.key, top.expectKey = fmt.Sprint(tok), false
			if inside {
				return pathOf(stack)
			}
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &pathFrame{expectKey: true})
		case json.Delim('['):
			stack = append(stack, &pathFrame{array: true})
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			afterValue(stack)
		default:
			if _, ok := tok.(string); ok && inside {
				return pathOf(stack)
			}
			afterValue(stack)
		}
	}
}

// afterValue moves the innermost frame past a finished value.
func afterValue(stack []*pathFrame) {
	if len(stack) == 0 {
		return
	}
	top := stack[len(stack)-1]
	if top.array {
		top.index++
	} else {
		top.expectKey = true
	}
}

// pathOf writes the path of the current value: "questions[1].label".
func pathOf(stack []*pathFrame) string {
	var b bytes.Buffer
	for _, f := range stack {
		if f.array {
			fmt.Fprintf(&b, "[%d]", f.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(f.key)
	}
	return b.String()
}
