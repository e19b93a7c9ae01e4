package api

import (
	"strconv"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
)

// The two bodies of every agent's cycle, an ask and an answer command, are
// read first by a strict decoder of their own, which took encoding/json's
// reflection (about 4 % of the bridge's CPU) off that path. It accepts only
// what it decodes exactly as encoding/json with DisallowUnknownFields
// does, to the same values: anything else returns false, and decode reads
// the body with encoding/json, whose result and error messages stand. So
// it declines a key that is not a field's exact name or that comes twice,
// null, a string with an escape, a control character or bytes that are
// not UTF-8, a team policy, data after the object, and a value a field's
// own UnmarshalJSON would refuse (TestFastDecodeMatchesEncodingJSON,
// FuzzFastDecode).

// fastDecode decodes data into v when v is a body it knows and data is
// within what it accepts; it reports whether it did. v is changed only
// when it reports true.
func fastDecode(data []byte, v any) bool {
	s := scanner{b: data}
	switch v := v.(type) {
	case *broker.AskRequest:
		var req broker.AskRequest
		if s.askRequest(&req) && s.end() {
			*v = req
			return true
		}
	case *CommandRequest:
		var req CommandRequest
		if s.commandRequest(&req) && s.end() {
			*v = req
			return true
		}
	}
	return false
}

// scanner reads JSON from b at i; every method reports false for what it
// declines.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// end reports whether only whitespace is left.
func (s *scanner) end() bool {
	s.ws()
	return s.i == len(s.b)
}

// next reports whether c comes next, and takes it.
func (s *scanner) next(c byte) bool {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// peek returns the next byte that is not whitespace, or 0.
func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// str reads a string without escapes or control characters, of valid
// UTF-8: its bytes are its value.
func (s *scanner) str() (string, bool) {
	if !s.next('"') {
		return "", false
	}
	start, ascii := s.i, true
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			v := s.b[start:j]
			if !ascii && !utf8.Valid(v) {
				return "", false
			}
			s.i = j + 1
			return string(v), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// boolean reads true or false.
func (s *scanner) boolean() (bool, bool) {
	s.ws()
	rest := s.b[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// number reads a JSON number and returns its text.
func (s *scanner) number() ([]byte, bool) {
	s.ws()
	b, i := s.b, s.i
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case digits() == 0:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	s.i = i
	return b[start:i], true
}

// object reads an object, calling field for each key; field reads the
// value. Each key must be one of names, at most once.
func (s *scanner) object(names []string, field func(k int) bool) bool {
	if !s.next('{') {
		return false
	}
	if s.next('}') {
		return true
	}
	var seen uint64
	for {
		key, ok := s.str()
		if !ok || !s.next(':') {
			return false
		}
		k := -1
		for j, n := range names {
			if n == key {
				k = j
				break
			}
		}
		if k < 0 || seen&(1<<k) != 0 {
			return false
		}
		seen |= 1 << k
		if !field(k) {
			return false
		}
		if s.next('}') {
			return true
		}
		if !s.next(',') {
			return false
		}
	}
}

// strFields reads an object whose fields, names, are all strings, into
// dst in the same order.
func (s *scanner) strFields(names []string, dst ...*string) bool {
	return s.object(names, func(k int) bool {
		v, ok := s.str()
		*dst[k] = v
		return ok
	})
}

// array reads an array, calling elem for each element; it reports how
// many there were.
func (s *scanner) array(elem func() bool) (int, bool) {
	if !s.next('[') {
		return 0, false
	}
	if s.next(']') {
		return 0, true
	}
	for n := 1; ; n++ {
		if !elem() {
			return 0, false
		}
		if s.next(']') {
			return n, true
		}
		if !s.next(',') {
			return 0, false
		}
	}
}

// strs reads an array of strings; an empty one is empty, not nil, as
// encoding/json gives.
func (s *scanner) strs() ([]string, bool) {
	out := []string{}
	_, ok := s.array(func() bool {
		v, ok := s.str()
		out = append(out, v)
		return ok
	})
	return out, ok
}

// duration reads a broker.Duration: a string ParseDuration reads, or a
// number its UnmarshalJSON reads.
func (s *scanner) duration() (*broker.Duration, bool) {
	var d broker.Duration
	if s.peek() == '"' {
		v, ok := s.str()
		if !ok {
			return nil, false
		}
		p, err := broker.ParseDuration(v)
		if err != nil {
			return nil, false
		}
		d = broker.Duration(p)
		return &d, true
	}
	n, ok := s.number()
	if !ok || d.UnmarshalJSON(n) != nil {
		return nil, false
	}
	return &d, true
}

// stringList reads a broker.StringList as its UnmarshalJSON does: a
// string (none when empty) or an array of strings.
func (s *scanner) stringList() (broker.StringList, bool) {
	if s.peek() == '"' {
		v, ok := s.str()
		if !ok || v == "" {
			return nil, ok
		}
		return broker.StringList{v}, true
	}
	l, ok := s.strs()
	return broker.StringList(l), ok
}

// other reads the value of "other", a *bool.
func (s *scanner) other() (*bool, bool) {
	v, ok := s.boolean()
	if !ok {
		return nil, false
	}
	return &v, true
}

var optionFields = []string{"label", "description", "action", "prefill", "edit"}

func (s *scanner) options() ([]broker.Option, bool) {
	out := make([]broker.Option, 0, 4)
	_, ok := s.array(func() bool {
		var o broker.Option
		ok := s.strFields(optionFields, &o.Label, &o.Description, &o.Action, &o.Prefill, &o.Edit)
		out = append(out, o)
		return ok
	})
	return out, ok
}

var promptFields = []string{"question", "header", "options", "multi_select", "other", "default", "field"}

// promptField reads the value of p's field promptFields[k].
func (s *scanner) promptField(p *broker.Prompt, k int) bool {
	var ok bool
	switch k {
	case 0:
		p.Question, ok = s.str()
	case 1:
		p.Header, ok = s.str()
	case 2:
		p.Options, ok = s.options()
	case 3:
		p.MultiSelect, ok = s.boolean()
	case 4:
		p.Other, ok = s.other()
	case 5:
		p.Default, ok = s.stringList()
	case 6:
		p.Field, ok = s.field()
	}
	return ok
}

func (s *scanner) prompts() ([]broker.Prompt, bool) {
	out := []broker.Prompt{}
	_, ok := s.array(func() bool {
		var p broker.Prompt
		ok := s.object(promptFields, func(k int) bool { return s.promptField(&p, k) })
		out = append(out, p)
		return ok
	})
	return out, ok
}

// askFields are AskRequest's fields but policy, which is left to
// encoding/json: its own, then the single-prompt shortcut's, which are a
// prompt's (promptFields, in that order).
var askFields = append([]string{
	"session_id", "tool_call_id", "questions", "route", "timeout", "context", "responders",
	"callback_url", "lease", "reminders", "wait", "requested_by", "conversation",
}, promptFields...)

// shortcutAt is the index in askFields of the shortcut's first field.
var shortcutAt = len(askFields) - len(promptFields)

func (s *scanner) askRequest(r *broker.AskRequest) bool {
	var short broker.Prompt
	ok := s.object(askFields, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			r.SessionID, ok = s.str()
		case 1:
			r.ToolCallID, ok = s.str()
		case 2:
			r.Questions, ok = s.prompts()
		case 3:
			r.Route, ok = s.str()
		case 4:
			r.Timeout, ok = s.duration()
		case 5:
			r.Context, ok = s.str()
		case 6:
			r.Responders, ok = s.strs()
		case 7:
			r.CallbackURL, ok = s.str()
		case 8:
			r.Lease, ok = s.duration()
		case 9:
			r.Reminders, ok = s.floats()
		case 10:
			r.Wait, ok = s.duration()
		case 11:
			r.RequestedBy, ok = s.strs()
		case 12:
			r.Conversation, ok = s.boolean()
		default:
			ok = s.promptField(&short, k-shortcutAt)
		}
		return ok
	})
	r.Question, r.Header, r.Options = short.Question, short.Header, short.Options
	r.MultiSelect, r.Other, r.Default, r.Field = short.MultiSelect, short.Other, short.Default, short.Field
	return ok
}

// floats reads an array of numbers as float64, as strconv.ParseFloat
// reads them (encoding/json does the same).
func (s *scanner) floats() ([]float64, bool) {
	out := []float64{}
	_, ok := s.array(func() bool {
		n, ok := s.number()
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(string(n), 64)
		out = append(out, f)
		return err == nil
	})
	return out, ok
}

var commandFields = []string{"channel", "chat", "user", "text"}

func (s *scanner) commandRequest(r *CommandRequest) bool {
	return s.strFields(commandFields, &r.Channel, &r.Chat, &r.User, &r.Text)
}
