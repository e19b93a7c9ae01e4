package api

import (
	"strconv"

	"github.com/askbridge/askbridge/broker"
)

// A prompt's typed field (broker.Field), read by the fast path of an ask
// like the rest of it: what encoding/json would read to the same value,
// or false.

var fieldFields = []string{
	"name", "type", "title", "description", "default", "min_length", "max_length",
	"format", "minimum", "maximum", "choices", "min_items", "max_items",
}

func (s *scanner) field() (*broker.Field, bool) {
	var f broker.Field
	ok := s.object(fieldFields, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			f.Name, ok = s.str()
		case 1:
			var t string
			t, ok = s.str()
			f.Type = broker.FieldType(t)
		case 2:
			f.Title, ok = s.str()
		case 3:
			f.Description, ok = s.str()
		case 4:
			f.Default, ok = s.value()
		case 5:
			f.MinLength, ok = s.intPtr()
		case 6:
			f.MaxLength, ok = s.intPtr()
		case 7:
			f.Format, ok = s.str()
		case 8:
			f.Minimum, ok = s.floatPtr()
		case 9:
			f.Maximum, ok = s.floatPtr()
		case 10:
			f.Choices, ok = s.choices()
		case 11:
			f.MinItems, ok = s.intPtr()
		case 12:
			f.MaxItems, ok = s.intPtr()
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	return &f, true
}

// value reads a field's default: a number, true or false, a string or an
// array of strings, handed to broker.Value's UnmarshalJSON as
// encoding/json hands it the value's bytes.
func (s *scanner) value() (broker.Value, bool) {
	var v broker.Value
	c := s.peek()
	start := s.i
	var ok bool
	switch {
	case c == '"':
		_, ok = s.str()
	case c == '[':
		_, ok = s.strs()
	case c == 't' || c == 'f':
		_, ok = s.boolean()
	default:
		_, ok = s.number()
	}
	if !ok || v.UnmarshalJSON(s.b[start:s.i]) != nil {
		return broker.Value{}, false
	}
	return v, true
}

// intPtr reads an int as encoding/json does: a number without a fraction
// or exponent that fits.
func (s *scanner) intPtr() (*int, bool) {
	n, ok := s.number()
	if !ok {
		return nil, false
	}
	v, err := strconv.Atoi(string(n))
	if err != nil {
		return nil, false
	}
	return &v, true
}

func (s *scanner) floatPtr() (*float64, bool) {
	n, ok := s.number()
	if !ok {
		return nil, false
	}
	v, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return nil, false
	}
	return &v, true
}

var choiceFields = []string{"value", "title"}

// choices reads an array of choices; an empty one is empty, not nil, as
// encoding/json gives.
func (s *scanner) choices() ([]broker.FieldChoice, bool) {
	out := []broker.FieldChoice{}
	_, ok := s.array(func() bool {
		var c broker.FieldChoice
		ok := s.strFields(choiceFields, &c.Value, &c.Title)
		out = append(out, c)
		return ok
	})
	return out, ok
}
