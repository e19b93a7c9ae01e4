package mcp

import (
	"encoding/json"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/askbridge/askbridge/client"
)

// FieldInput is a question's typed answer as ask_user takes it: one
// property of an MCP elicitation requestedSchema (a
// PrimitiveSchemaDefinition), with the specification's names. A string
// with enum or oneOf is one choice, an array of them several; the bridge
// checks it and names what is wrong.
type FieldInput struct {
	Name        string       `json:"name,omitempty" jsonschema:"the key of the value, such as port"`
	Type        string       `json:"type" jsonschema:"string, number, integer, boolean, or array (several choices of items)"`
	Title       string       `json:"title,omitempty" jsonschema:"what people call the value, such as Port; a refusal names it"`
	Description string       `json:"description,omitempty" jsonschema:"one line on what the value is for"`
	Default     any          `json:"default,omitempty" jsonschema:"the value used when nobody answers in time, typed: 8080, true, \"eu\", [\"eu\"]"`
	MinLength   *int         `json:"minLength,omitempty" jsonschema:"a string's fewest characters"`
	MaxLength   *int         `json:"maxLength,omitempty" jsonschema:"a string's most characters"`
	Format      string       `json:"format,omitempty" jsonschema:"a string's format: email, uri, date or date-time"`
	Minimum     *float64     `json:"minimum,omitempty" jsonschema:"the smallest number"`
	Maximum     *float64     `json:"maximum,omitempty" jsonschema:"the largest number"`
	Enum        []string     `json:"enum,omitempty" jsonschema:"the 2 to 4 values of a string to choose from"`
	EnumNames   []string     `json:"enumNames,omitempty" jsonschema:"titles of the enum values, in their order (the older way; prefer oneOf)"`
	OneOf       []ConstInput `json:"oneOf,omitempty" jsonschema:"the 2 to 4 choices of a string, each a value (const) and what people see (title)"`
	Items       *ItemsInput  `json:"items,omitempty" jsonschema:"an array's choices: enum, or anyOf of const and title"`
	MinItems    *int         `json:"minItems,omitempty" jsonschema:"the fewest choices of an array"`
	MaxItems    *int         `json:"maxItems,omitempty" jsonschema:"the most choices of an array"`
}

// ConstInput is one titled choice: {"const": "eu", "title": "Europe"}.
type ConstInput struct {
	Const string `json:"const" jsonschema:"the value returned"`
	Title string `json:"title,omitempty" jsonschema:"what people see"`
}

// ItemsInput are the choices of an array field.
type ItemsInput struct {
	Type  string       `json:"type,omitempty" jsonschema:"string, the type of the values"`
	Enum  []string     `json:"enum,omitempty" jsonschema:"the values to choose from"`
	AnyOf []ConstInput `json:"anyOf,omitempty" jsonschema:"the choices, each a value (const) and a title"`
}

// Field is the bridge's field of in, or nil; the bridge checks it and
// names what is wrong with it. A type it does not know goes as given,
// for the bridge to refuse. The hook of Claude Code's Elicitation event
// reads the properties of another server's form with it too.
func (in *FieldInput) Field() *client.Field {
	if in == nil {
		return nil
	}
	f := &client.Field{
		Name: in.Name, Type: client.FieldType(in.Type), Title: in.Title, Description: in.Description,
		MinLength: in.MinLength, MaxLength: in.MaxLength, Format: in.Format, Minimum: in.Minimum, Maximum: in.Maximum,
	}
	if in.Default != nil {
		f.Default, _ = json.Marshal(in.Default)
	}
	switch {
	case in.Type == "string" && (in.Enum != nil || in.OneOf != nil):
		f.Type, f.Choices = client.FieldEnum, choicesOf(in.Enum, in.EnumNames, in.OneOf)
	case in.Type == "array":
		f.Type, f.MinItems, f.MaxItems = client.FieldMultiEnum, in.MinItems, in.MaxItems
		if in.Items != nil {
			f.Choices = choicesOf(in.Items.Enum, nil, in.Items.AnyOf)
		}
	}
	if f.Type != client.FieldMultiEnum && (in.MinItems != nil || in.MaxItems != nil) {
		// Sent as given, for the bridge to say which type takes them.
		f.MinItems, f.MaxItems = in.MinItems, in.MaxItems
	}
	return f
}

// choicesOf are the choices of enum (titled by names) and oneOf.
func choicesOf(enum, names []string, oneOf []ConstInput) []client.FieldChoice {
	out := []client.FieldChoice{}
	for i, v := range enum {
		c := client.FieldChoice{Value: v}
		if i < len(names) {
			c.Title = names[i]
		}
		out = append(out, c)
	}
	for _, c := range oneOf {
		out = append(out, client.FieldChoice{Value: c.Const, Title: c.Title})
	}
	return out
}

// fieldKeys write the bridge's names of a field's keys in its errors as
// ask_user names them.
var fieldKeys = strings.NewReplacer(
	"min_length", "minLength", "max_length", "maxLength", "min_items", "minItems", "max_items", "maxItems",
)

// fixFieldSchema gives the inferred schema of a question's field the
// limits of the specification: the types and formats it names, and
// plain types where the inference writes optional numbers as nullable.
func fixFieldSchema(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	fixNullable(s)
	s.Properties["type"].Enum = []any{"string", "number", "integer", "boolean", "array"}
	s.Properties["format"].Enum = []any{"email", "uri", "date", "date-time"}
	s.Properties["default"] = &jsonschema.Schema{Description: s.Properties["default"].Description, AnyOf: []*jsonschema.Schema{
		{Type: "string"}, {Type: "number"}, {Type: "boolean"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}},
	}}
	for _, k := range []string{"enum", "oneOf"} {
		s.Properties[k].MinItems, s.Properties[k].MaxItems = jsonschema.Ptr(2), jsonschema.Ptr(4)
	}
	if items := s.Properties["items"]; items != nil {
		fixNullable(items)
	}
}
