package broker

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
)

// A prompt may carry a typed field (Prompt.Field): the answer is then a
// value of a type, checked when a person gives it and returned typed
// (8080, not "8080"). The types are those of MCP elicitation's requested
// schema: a string (of a length, or an email address, URI, date or date
// and time), a number or a whole number (in a range), a boolean, one
// choice of a list, several choices of a list. A field fixes the
// prompt's options: an enum's choices become them, so every channel
// shows buttons as for any prompt, and a boolean's are Yes and No; the
// other types take text, which the field reads.

// FieldType is the type of a prompt's field.
type FieldType string

// The types of a field.
const (
	FieldString    FieldType = "string"
	FieldNumber    FieldType = "number"
	FieldInteger   FieldType = "integer"
	FieldBoolean   FieldType = "boolean"
	FieldEnum      FieldType = "enum"
	FieldMultiEnum FieldType = "multi_enum"
)

// FieldTypes lists the types of a field in the order documents name them.
var FieldTypes = []FieldType{FieldString, FieldNumber, FieldInteger, FieldBoolean, FieldEnum, FieldMultiEnum}

// The formats of a string field, named as MCP elicitation names them.
const (
	FormatEmail    = "email"
	FormatURI      = "uri"
	FormatDate     = "date"
	FormatDateTime = "date-time"
)

// Formats lists the formats of a string field.
var Formats = []string{FormatEmail, FormatURI, FormatDate, FormatDateTime}

// Limits of a field.
const (
	maxFieldNameChars = 64
	// MaxFieldLength is the largest max_length of a string field.
	MaxFieldLength = MaxContextChars
	// maxExactInteger is the largest whole number a float64 holds
	// exactly, 2^53: the bounds of an integer field stay within it.
	maxExactInteger = 1 << 53
)

// Field is the typed field of a prompt. Type says which of the other
// keys apply: the lengths and format to a string, the minimum and maximum
// to a number or an integer, the choices to an enum or a multi_enum, and
// the item counts to a multi_enum. Title names the field in what people
// read ("Port must be a whole number from 1024 to 65535"); Name is the
// agent's key for it.
type Field struct {
	Name        string        `json:"name,omitempty"`
	Type        FieldType     `json:"type"`
	Title       string        `json:"title,omitempty"`
	Description string        `json:"description,omitempty"`
	Default     Value         `json:"default,omitzero"`
	MinLength   *int          `json:"min_length,omitempty"`
	MaxLength   *int          `json:"max_length,omitempty"`
	Format      string        `json:"format,omitempty"`
	Minimum     *float64      `json:"minimum,omitempty"`
	Maximum     *float64      `json:"maximum,omitempty"`
	Choices     []FieldChoice `json:"choices,omitempty"`
	MinItems    *int          `json:"min_items,omitempty"`
	MaxItems    *int          `json:"max_items,omitempty"`
}

// FieldChoice is one choice of an enum field: the value the agent gets
// back, and the title people see (the value when there is none).
type FieldChoice struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// Label is what people see of c: its title, or else its value.
func (c FieldChoice) Label() string {
	if c.Title != "" {
		return c.Title
	}
	return c.Value
}

// clone returns a copy of f that shares nothing with it.
func (f *Field) clone() *Field {
	if f == nil {
		return nil
	}
	c := *f
	c.MinLength, c.MaxLength = clonePtr(f.MinLength), clonePtr(f.MaxLength)
	c.Minimum, c.Maximum = clonePtr(f.Minimum), clonePtr(f.Maximum)
	c.MinItems, c.MaxItems = clonePtr(f.MinItems), clonePtr(f.MaxItems)
	c.Choices = slices.Clone(f.Choices)
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// choiceType reports whether answers to f are picked among options.
func (f *Field) choiceType() bool {
	return f.Type == FieldEnum || f.Type == FieldMultiEnum || f.Type == FieldBoolean
}

// Value is a typed answer, or a field's default, as JSON: 8080, true,
// "2026-12-03", ["eu","us"]. It is immutable, and always written
// compact, as json.Marshal writes it; the zero Value is no value.
type Value struct{ json string }

// IsZero reports whether v holds no value.
func (v Value) IsZero() bool { return v.json == "" }

// String returns v's JSON, or "" for no value.
func (v Value) String() string { return v.json }

// MarshalJSON writes v's JSON (null for no value).
func (v Value) MarshalJSON() ([]byte, error) {
	if v.json == "" {
		return []byte("null"), nil
	}
	return []byte(v.json), nil
}

// UnmarshalJSON reads any JSON value, written again compact; null is no
// value.
func (v *Value) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*v = Value{}
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value")
	}
	nv, err := valueOf(x)
	if err != nil {
		return err
	}
	*v = nv
	return nil
}

// Decode decodes v into x, as json.Unmarshal does.
func (v Value) Decode(x any) error {
	if v.json == "" {
		return errors.New("no value")
	}
	return json.Unmarshal([]byte(v.json), x)
}

// valueOf is x as a Value, written by json.Marshal.
func valueOf(x any) (Value, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return Value{}, err
	}
	return Value{json: string(b)}, nil
}

// plainValue is valueOf for the values json.Marshal always writes:
// strings, booleans, finite numbers and lists of strings.
func plainValue(x any) Value {
	v, _ := valueOf(x)
	return v
}
