package client

import (
	"encoding/json"
	"errors"
	"fmt"
)

// FieldType is the type of a prompt's field.
type FieldType string

// The types of a field, as MCP elicitation's requested schema has them.
const (
	FieldString    FieldType = "string"
	FieldNumber    FieldType = "number"
	FieldInteger   FieldType = "integer"
	FieldBoolean   FieldType = "boolean"
	FieldEnum      FieldType = "enum"
	FieldMultiEnum FieldType = "multi_enum"
)

// The formats of a string field.
const (
	FormatEmail    = "email"
	FormatURI      = "uri"
	FormatDate     = "date"
	FormatDateTime = "date-time"
)

// Field types the answer to a prompt: the bridge checks what people give
// against it (a refusal names the rule: "Port must be a whole number
// from 1024 to 65535") and returns it typed in Answer.Value. Type says
// which keys apply: MinLength, MaxLength and Format to a string, Minimum
// and Maximum to a number or an integer, Choices to an enum or a
// multi_enum, MinItems and MaxItems to a multi_enum. The constructors
// below build the common ones.
type Field struct {
	Name        string          `json:"name,omitempty"`
	Type        FieldType       `json:"type"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
	MinLength   *int            `json:"min_length,omitempty"`
	MaxLength   *int            `json:"max_length,omitempty"`
	Format      string          `json:"format,omitempty"`
	Minimum     *float64        `json:"minimum,omitempty"`
	Maximum     *float64        `json:"maximum,omitempty"`
	Choices     []FieldChoice   `json:"choices,omitempty"`
	MinItems    *int            `json:"min_items,omitempty"`
	MaxItems    *int            `json:"max_items,omitempty"`
}

// FieldChoice is one choice of an enum field: the value returned, and
// the title people see (the value when empty).
type FieldChoice struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// TextField is a string field; format is "" or one of FormatEmail,
// FormatURI, FormatDate and FormatDateTime.
func TextField(name, title, format string) Field {
	return Field{Name: name, Type: FieldString, Title: title, Format: format}
}

// IntField is a whole number from min to max.
func IntField(name, title string, min, max int64) Field {
	lo, hi := float64(min), float64(max)
	return Field{Name: name, Type: FieldInteger, Title: title, Minimum: &lo, Maximum: &hi}
}

// NumberField is a number from min to max.
func NumberField(name, title string, min, max float64) Field {
	return Field{Name: name, Type: FieldNumber, Title: title, Minimum: &min, Maximum: &max}
}

// BoolField is yes or no.
func BoolField(name, title string) Field {
	return Field{Name: name, Type: FieldBoolean, Title: title}
}

// EnumField is one of 2–4 values, shown as buttons.
func EnumField(name, title string, values ...string) Field {
	return Field{Name: name, Type: FieldEnum, Title: title, Choices: fieldChoices(values)}
}

// MultiEnumField is one or more of 2–4 values.
func MultiEnumField(name, title string, values ...string) Field {
	return Field{Name: name, Type: FieldMultiEnum, Title: title, Choices: fieldChoices(values)}
}

func fieldChoices(values []string) []FieldChoice {
	out := make([]FieldChoice, len(values))
	for i, v := range values {
		out[i] = FieldChoice{Value: v}
	}
	return out
}

// WithDefault returns f with the value used when nobody answers in time,
// typed: 8080, true, "2026-12-03", []string{"eu"}.
func (f Field) WithDefault(v any) (Field, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return f, fmt.Errorf("askbridge: default of field %q: %w", f.Name, err)
	}
	f.Default = b
	return f, nil
}

// Field adds a prompt whose answer is typed by fd.
func (f *Form) Field(question string, fd Field) *Form {
	return f.add(Prompt{Question: question, Field: &fd})
}

// ErrNoValue is returned by FormAnswers.Decode for a prompt without a
// typed answer: skipped, unanswered, or without a field.
var ErrNoValue = errors.New("askbridge: the prompt has no typed answer")

// Decode decodes the typed answer of a prompt with a field into v, as
// json.Unmarshal does: an int64 for an integer, a float64 for a number,
// a bool, a string, a []string for a multi_enum.
func (a *FormAnswers) Decode(question string, v any) error {
	raw := a.Result.Answers[question].Value
	if len(raw) == 0 {
		return ErrNoValue
	}
	return json.Unmarshal(raw, v)
}

// Int returns the whole number answered to an integer field, and false
// when there is none.
func (a *FormAnswers) Int(question string) (int64, bool) {
	var n int64
	return n, a.Decode(question, &n) == nil
}

// Number returns the number answered to a number field, and false when
// there is none.
func (a *FormAnswers) Number(question string) (float64, bool) {
	var x float64
	return x, a.Decode(question, &x) == nil
}

// Bool returns the answer to a boolean field, and false as its second
// value when there is none.
func (a *FormAnswers) Bool(question string) (value, ok bool) {
	return value, a.Decode(question, &value) == nil
}

// Values returns the values chosen in a multi_enum field, or the one of
// an enum field.
func (a *FormAnswers) Values(question string) []string {
	var many []string
	if a.Decode(question, &many) == nil {
		return many
	}
	var one string
	if a.Decode(question, &one) == nil {
		return []string{one}
	}
	return nil
}
