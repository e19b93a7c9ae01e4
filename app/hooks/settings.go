package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// An agent's JSON settings file, edited in place: members keep their
// order, and every value the edit does not touch keeps its bytes (the
// file is re-indented with two spaces).

// jsonMember is one key of a JSON object with its raw value.
type jsonMember struct {
	key   string
	value json.RawMessage
}

// jsonObject is a JSON object that keeps the order of its keys.
type jsonObject []jsonMember

// parseObject reads data as one JSON object. A syntax error names its
// line and column; a duplicate key is an error, as the agents would read
// only one of them.
func parseObject(data []byte, what string) (jsonObject, error) {
	if err := syntaxCheck(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("%s is %s, not an object", what, jsonKind(data))
	}
	var o jsonObject
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, fmt.Errorf("%s has the key %q twice", what, key)
		}
		seen[key] = true
		o = append(o, jsonMember{key, v})
	}
	return o, nil
}

// syntaxCheck reports the first syntax error of data with its line and
// column.
func syntaxCheck(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the bad one included; at the
		// end of the input there is no bad byte to point at.
		off := se.Offset
		if off > 0 && !strings.Contains(se.Error(), "unexpected end") {
			off--
		}
		line, col := lineCol(data, off)
		return fmt.Errorf("line %d, column %d: %v", line, col, se)
	}
	return err
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	off = min(off, int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// jsonKind names the kind of a JSON value for errors.
func jsonKind(raw json.RawMessage) string {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 {
		return "empty"
	}
	switch s[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func (o jsonObject) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces the value of key where it stands, or appends it.
func (o *jsonObject) set(key string, v json.RawMessage) {
	for i, m := range *o {
		if m.key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, jsonMember{key, v})
}

func (o *jsonObject) remove(key string) {
	for i, m := range *o {
		if m.key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// raw encodes o compactly, keys in order, values as they were.
func (o jsonObject) raw() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshalNoEscape(m.key))
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// file renders o as a settings file: two-space indents, a final newline.
func (o jsonObject) file() ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, o.raw(), "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// marshalNoEscape encodes v without escaping <, > and &.
func marshalNoEscape(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// parseArray reads raw as a JSON array of raw values.
func parseArray(raw json.RawMessage, what string) ([]json.RawMessage, error) {
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil || a == nil {
		return nil, fmt.Errorf("%s is %s, not an array", what, jsonKind(raw))
	}
	return a, nil
}

// rawArray encodes a list of raw values.
func rawArray(a []json.RawMessage) json.RawMessage {
	if len(a) == 0 {
		return json.RawMessage("[]")
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes()
}
