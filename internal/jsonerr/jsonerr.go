// Package jsonerr turns the errors of encoding/json into sentences for the
// person or program that sent the JSON: they name the field with its
// position ("questions[0].options"), say what was expected in words ("a
// list of options", "a string") and never show Go type names or the
// decoder's "json:" prefix.
//
// The decoder's own errors lack list positions and speak Go
// ("must be []broker.Prompt"), so Describe walks the JSON beside the Go
// type it was decoded into and finds the first value that does not fit.
package jsonerr

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Problem is what is wrong with a JSON document.
type Problem struct {
	// Field is the path of the offending value ("questions[0].options"),
	// "" when the whole document is at fault.
	Field string
	// Message is the sentence to show, starting with Field when set.
	Message string
	// Malformed is true when the text is not JSON at all (as opposed to
	// JSON that does not fit).
	Malformed bool
}

// Describe explains err, returned by decoding data into v (a pointer)
// with DisallowUnknownFields. what names the document in messages: "the
// request body", "the file ask.json".
func Describe(what string, data []byte, v any, err error) Problem {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
		return Problem{Message: what + " is empty; send a JSON object", Malformed: true}
	case errors.As(err, &syn):
		return Problem{Message: fmt.Sprintf("%s is not valid JSON: %s (at byte %d)", what, syn.Error(), syn.Offset), Malformed: true}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return Problem{Message: what + " ends before its JSON is complete", Malformed: true}
	}
	if !json.Valid(data) {
		return Problem{Message: what + " must hold one JSON object and nothing after it", Malformed: true}
	}
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil {
		if p, ok := walk(json.RawMessage(data), t, ""); ok {
			if p.Field == "" {
				p.Message = what + " " + p.Message
			}
			return p
		}
	}
	// Not found by the walk: say what the decoder said, without its
	// prefix and Go type names.
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return Problem{Message: what + " does not fit: " + msg}
}

var (
	unmarshaler     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// walk finds the first value of raw that does not fit t. path is where
// raw sits.
func walk(raw json.RawMessage, t reflect.Type, path string) (Problem, bool) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return Problem{}, false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				return problem(path, "must be "+words(t, path)+", got "+valueWords(raw)), true
			}
			return problem(path, strings.TrimPrefix(err.Error(), "json: ")), true
		}
		return Problem{}, false
	}
	switch t.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
			return problem(path, "must be "+words(t, path)+", got "+valueWords(raw)), true
		}
		return walkStruct(obj, t, path)
	case reflect.Slice, reflect.Array:
		var list []json.RawMessage
		if raw[0] != '[' || json.Unmarshal(raw, &list) != nil {
			return problem(path, "must be "+words(t, path)+", got "+valueWords(raw)), true
		}
		for i, el := range list {
			if p, ok := walk(el, t.Elem(), path+"["+strconv.Itoa(i)+"]"); ok {
				return p, true
			}
		}
		return Problem{}, false
	case reflect.Map:
		var obj map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
			return problem(path, "must be "+words(t, path)+", got "+valueWords(raw)), true
		}
		for k, el := range obj {
			if p, ok := walk(el, t.Elem(), join(path, k)); ok {
				return p, true
			}
		}
		return Problem{}, false
	case reflect.Interface:
		return Problem{}, false
	}
	if err := json.Unmarshal(raw, reflect.New(t).Interface()); err != nil {
		return problem(path, "must be "+words(t, path)+", got "+valueWords(raw)), true
	}
	return Problem{}, false
}

// walkStruct checks the members of an object against struct t: known
// fields in declaration order, then any unknown one.
func walkStruct(obj map[string]json.RawMessage, t reflect.Type, path string) (Problem, bool) {
	known := map[string]bool{}
	var check func(t reflect.Type) (Problem, bool)
	check = func(t reflect.Type) (Problem, bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() && !f.Anonymous {
				continue
			}
			if f.Anonymous && name == "" {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					if p, ok := check(ft); ok {
						return p, true
					}
					continue
				}
			}
			if name == "" {
				name = f.Name
			}
			known[strings.ToLower(name)] = true
			for k, raw := range obj {
				if k == name || strings.EqualFold(k, name) {
					if p, ok := walk(raw, f.Type, join(path, name)); ok {
						return p, true
					}
				}
			}
		}
		return Problem{}, false
	}
	if p, ok := check(t); ok {
		return p, true
	}
	var unknown []string
	for k := range obj {
		if !known[strings.ToLower(k)] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		f := join(path, unknown[0])
		return Problem{Field: f, Message: "unknown field " + f}, true
	}
	return Problem{}, false
}

func problem(path, msg string) Problem {
	if path == "" {
		return Problem{Message: msg}
	}
	return Problem{Field: path, Message: path + ": " + msg}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// words says what a value of t looks like; path's last name gives lists
// of objects their noun ("a list of questions").
func words(t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list of " + plural(t.Elem(), path)
	case reflect.Map, reflect.Struct:
		if path == "" {
			return "a JSON object"
		}
		return "an object"
	}
	return "another kind of value"
}

func plural(t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "strings"
	case reflect.Bool:
		return "true or false values"
	case reflect.Float32, reflect.Float64:
		return "numbers"
	case reflect.Struct, reflect.Map:
		name := path[strings.LastIndexAny(path, ".]")+1:]
		if name == "" {
			return "objects"
		}
		return name
	}
	if w := words(t, path); strings.HasPrefix(w, "a whole") {
		return "whole numbers"
	}
	return "values"
}

// valueWords says what a JSON value is: "a string", "a list", ….
func valueWords(raw json.RawMessage) string {
	switch raw[0] {
	case '"':
		return "a string"
	case '[':
		return "a list"
	case '{':
		return "an object"
	case 't', 'f':
		return string(raw)
	case 'n':
		return "null"
	}
	return "the number " + string(raw)
}
