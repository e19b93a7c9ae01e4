package broker

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func ip(v int) *int         { return &v }
func fp(v float64) *float64 { return &v }
func jv(s string) Value     { var v Value; _ = v.UnmarshalJSON([]byte(s)); return v }
func choices(vs ...string) []FieldChoice {
	out := make([]FieldChoice, len(vs))
	for i, v := range vs {
		value, title, _ := strings.Cut(v, "=")
		out[i] = FieldChoice{Value: value, Title: title}
	}
	return out
}

// fieldAsk is a dialog of two prompts whose first has field f.
func fieldAsk(f Field, mod func(*Prompt)) AskRequest {
	p := Prompt{Question: "Which value?", Field: &f}
	if mod != nil {
		mod(&p)
	}
	return AskRequest{Questions: []Prompt{p, {Question: "Anything else?"}}}
}

// TestFieldValidation checks that every bad field is refused at ask time
// with an error naming its key, and changes nothing.
func TestFieldValidation(t *testing.T) {
	no := false
	tests := []struct {
		name  string
		req   AskRequest
		field string
		msg   string
	}{
		{"unknown type", fieldAsk(Field{Type: "date"}, nil), "questions[0].field.type", `must be one of string, number, integer, boolean, enum, multi_enum; got "date"`},
		{"no type", fieldAsk(Field{}, nil), "questions[0].field.type", `got ""`},
		{"format on a number", fieldAsk(Field{Type: FieldNumber, Format: FormatEmail}, nil), "questions[0].field.format", "only a string field takes format; this one is number"},
		{"minimum on a string", fieldAsk(Field{Type: FieldString, Minimum: fp(1)}, nil), "questions[0].field.minimum", "only a number or integer field takes minimum"},
		{"choices on a boolean", fieldAsk(Field{Type: FieldBoolean, Choices: choices("a", "b")}, nil), "questions[0].field.choices", "only an enum or multi_enum field takes choices"},
		{"min_items on an enum", fieldAsk(Field{Type: FieldEnum, Choices: choices("a", "b"), MinItems: ip(1)}, nil), "questions[0].field.min_items", "only a multi_enum field"},
		{"unknown format", fieldAsk(Field{Type: FieldString, Format: "phone"}, nil), "questions[0].field.format", `must be one of email, uri, date, date-time; got "phone"`},
		{"min_length over max_length", fieldAsk(Field{Type: FieldString, MinLength: ip(5), MaxLength: ip(3)}, nil), "questions[0].field.min_length", "5 is more than max_length, 3"},
		{"max_length 0", fieldAsk(Field{Type: FieldString, MaxLength: ip(0)}, nil), "questions[0].field.max_length", "must be 1 to 4000, got 0"},
		{"negative min_length", fieldAsk(Field{Type: FieldString, MinLength: ip(-1)}, nil), "questions[0].field.min_length", "must be 0 to 4000, got -1"},
		{"minimum over maximum", fieldAsk(Field{Type: FieldInteger, Minimum: fp(10), Maximum: fp(1)}, nil), "questions[0].field.minimum", "10 is more than maximum, 1"},
		{"fractional integer bound", fieldAsk(Field{Type: FieldInteger, Minimum: fp(0.5)}, nil), "questions[0].field.minimum", "whole-number bounds"},
		{"integer bound past 2^53", fieldAsk(Field{Type: FieldInteger, Maximum: fp(1e17)}, nil), "questions[0].field.maximum", "whole-number bounds"},
		{"one choice", fieldAsk(Field{Type: FieldEnum, Choices: choices("a")}, nil), "questions[0].field.choices", "give 2–4 choices, got 1"},
		{"no choices", fieldAsk(Field{Type: FieldEnum}, nil), "questions[0].field.choices", "give 2–4 choices, got 0"},
		{"five choices", fieldAsk(Field{Type: FieldEnum, Choices: choices("a", "b", "c", "d", "e")}, nil), "questions[0].field.choices", "got 5"},
		{"duplicate value", fieldAsk(Field{Type: FieldEnum, Choices: choices("a", "a")}, nil), "questions[0].field.choices[1].value", `duplicate value "a"`},
		{"empty value", fieldAsk(Field{Type: FieldEnum, Choices: choices("a", " ")}, nil), "questions[0].field.choices[1].value", "must not be empty"},
		{"duplicate titles", fieldAsk(Field{Type: FieldEnum, Choices: choices("a=Same", "b=same")}, nil), "questions[0].field.choices[1].title", `duplicate label "same"`},
		{"numeric value without a title", fieldAsk(Field{Type: FieldEnum, Choices: choices("1", "2")}, nil), "questions[0].field.choices[0].value", "cannot be only numbers"},
		{"min_items over choices", fieldAsk(Field{Type: FieldMultiEnum, Choices: choices("a", "b"), MinItems: ip(3)}, nil), "questions[0].field.min_items", "must be 0 to the number of choices, 2; got 3"},
		{"max_items 0", fieldAsk(Field{Type: FieldMultiEnum, Choices: choices("a", "b"), MaxItems: ip(0)}, nil), "questions[0].field.max_items", "must be 1 to the number of choices"},
		{"min_items over max_items", fieldAsk(Field{Type: FieldMultiEnum, Choices: choices("a", "b", "c"), MinItems: ip(3), MaxItems: ip(2)}, nil), "questions[0].field.min_items", "3 is more than max_items, 2"},
		{"default breaks the range", fieldAsk(Field{Type: FieldInteger, Title: "Port", Minimum: fp(1024), Maximum: fp(65535), Default: jv("80")}, nil), "questions[0].field.default", "must be a whole number from 1024 to 65535; got 80"},
		{"default of the wrong type", fieldAsk(Field{Type: FieldInteger, Default: jv(`"8080"`)}, nil), "questions[0].field.default", `must be a whole number; got "8080"`},
		{"default not a date", fieldAsk(Field{Type: FieldString, Format: FormatDate, Default: jv(`"tomorrow"`)}, nil), "questions[0].field.default", "must be a date such as 2026-12-03"},
		{"default not a choice", fieldAsk(Field{Type: FieldEnum, Choices: choices("a", "b"), Default: jv(`"c"`)}, nil), "questions[0].field.default", "must be one of a or b"},
		{"boolean default a string", fieldAsk(Field{Type: FieldBoolean, Default: jv(`"yes"`)}, nil), "questions[0].field.default", "must be yes or no"},
		{"multi default too few", fieldAsk(Field{Type: FieldMultiEnum, Choices: choices("a", "b", "c"), MinItems: ip(2), Default: jv(`["a"]`)}, nil), "questions[0].field.default", "must be at least 2 of the choices; got [\"a\"]"},
		{"multi default twice", fieldAsk(Field{Type: FieldMultiEnum, Choices: choices("a", "b"), Default: jv(`["a","a"]`)}, nil), "questions[0].field.default", "must be one or more of the choices"},
		{"text default breaks the rule", fieldAsk(Field{Type: FieldString, Format: FormatEmail}, func(p *Prompt) { p.Default = StringList{"ana"} }), "questions[0].default", `must be an email address such as ana@example.com; got "ana"`},
		{"both defaults", fieldAsk(Field{Type: FieldInteger, Default: jv("1")}, func(p *Prompt) { p.Default = StringList{"2"} }), "questions[0].default", "give the default once"},
		{"options beside a field", fieldAsk(Field{Type: FieldBoolean}, func(p *Prompt) { p.Options = []Option{{Label: "A"}, {Label: "B"}} }), "questions[0].options", "takes no options"},
		{"multi_select beside a field", fieldAsk(Field{Type: FieldEnum, Choices: choices("a", "b")}, func(p *Prompt) { p.MultiSelect = true }), "questions[0].multi_select", `use the type "multi_enum"`},
		{"other beside a field", fieldAsk(Field{Type: FieldString}, func(p *Prompt) { p.Other = &no }), "questions[0].other", "leave other out"},
		{"bad name", fieldAsk(Field{Type: FieldString, Name: "my port"}, nil), "questions[0].field.name", "a name is letters, digits"},
		{"title with a line break", fieldAsk(Field{Type: FieldString, Title: "a\nb"}, nil), "questions[0].field.title", "must be one line"},
		{"title too long", fieldAsk(Field{Type: FieldString, Title: strings.Repeat("t", 61)}, nil), "questions[0].field.title", "at most 60 characters, got 61"},
		{"same name twice", AskRequest{Questions: []Prompt{{Question: "A?", Field: &Field{Type: FieldString, Name: "x"}}, {Question: "B?", Field: &Field{Type: FieldNumber, Name: "x"}}}}, "questions[1].field.name", `two fields of one dialog are named "x"`},
		{"shortcut names its keys bare", AskRequest{Question: "Port?", Field: &Field{Type: FieldInteger, Minimum: fp(2), Maximum: fp(1)}}, "field.minimum", "2 is more than maximum, 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			before, _ := json.Marshal(req)
			_, err := validateRequest(&req)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Message, tc.msg) {
				t.Fatalf("got %v, want %s: …%s…", err, tc.field, tc.msg)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v is not ErrInvalid", err)
			}
			if after, _ := json.Marshal(req); string(after) != string(before) {
				t.Errorf("the refused request changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestFieldPrompts checks the prompt each type makes: its options, free
// text, and the default as people read it beside the typed one.
func TestFieldPrompts(t *testing.T) {
	tests := []struct {
		name      string
		field     Field
		dflt      StringList
		options   []string
		multi     bool
		other     bool
		wantDflt  []string
		wantValue string
	}{
		{"string", Field{Type: FieldString, Default: jv(`"main"`)}, nil, nil, false, true, []string{"main"}, `"main"`},
		{"date from text", Field{Type: FieldString, Format: FormatDate}, StringList{"2026-12-03"}, nil, false, true, []string{"2026-12-03"}, `"2026-12-03"`},
		{"date-time with a space", Field{Type: FieldString, Format: FormatDateTime}, StringList{"2026-12-03 14:30:00+02:00"}, nil, false, true, []string{"2026-12-03T14:30:00+02:00"}, `"2026-12-03T14:30:00+02:00"`},
		{"integer typed 8080.0", Field{Type: FieldInteger, Default: jv("8080.0")}, nil, nil, false, true, []string{"8080"}, "8080"},
		{"number from text", Field{Type: FieldNumber, Minimum: fp(0), Maximum: fp(1)}, StringList{"0.25"}, nil, false, true, []string{"0.25"}, "0.25"},
		{"boolean", Field{Type: FieldBoolean, Default: jv("false")}, nil, []string{"Yes", "No"}, false, false, []string{"No"}, "false"},
		{"boolean from text", Field{Type: FieldBoolean}, StringList{"yes"}, []string{"Yes", "No"}, false, false, []string{"Yes"}, "true"},
		{"enum by title", Field{Type: FieldEnum, Choices: choices("lo=Low", "hi=High"), Default: jv(`"hi"`)}, nil, []string{"Low", "High"}, false, false, []string{"High"}, `"hi"`},
		{"enum from a label", Field{Type: FieldEnum, Choices: choices("lo=Low", "hi=High")}, StringList{"low"}, []string{"Low", "High"}, false, false, []string{"Low"}, `"lo"`},
		{"multi_enum", Field{Type: FieldMultiEnum, Choices: choices("eu", "us", "ap"), Default: jv(`["ap","eu"]`)}, nil, []string{"eu", "us", "ap"}, true, false, []string{"ap", "eu"}, `["ap","eu"]`},
		{"multi_enum from values", Field{Type: FieldMultiEnum, Choices: choices("eu", "us=United States")}, StringList{"us", "eu"}, []string{"eu", "United States"}, true, false, []string{"United States", "eu"}, `["us","eu"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.field
			req := AskRequest{Question: "Which value?", Field: &f, Default: tc.dflt}
			ps, err := validateRequest(&req)
			if err != nil {
				t.Fatal(err)
			}
			p := ps[0]
			var labels []string
			for _, o := range p.Options {
				labels = append(labels, o.Label)
			}
			if strings.Join(labels, "|") != strings.Join(tc.options, "|") || p.MultiSelect != tc.multi || p.AllowsOther() != tc.other {
				t.Errorf("options %q multi %v other %v, want %q %v %v", labels, p.MultiSelect, p.AllowsOther(), tc.options, tc.multi, tc.other)
			}
			if strings.Join(p.Default, "|") != strings.Join(tc.wantDflt, "|") || p.Field.Default.String() != tc.wantValue {
				t.Errorf("default %q typed %s, want %q %s", p.Default, p.Field.Default, tc.wantDflt, tc.wantValue)
			}
			if p.Field == req.Field {
				t.Error("the stored field is the request's own memory")
			}
			// At the deadline the default applies, typed.
			q := &Question{Prompts: ps}
			a := TimedOut(q, q.ExpiresAt).Answers[p.Question]
			if !a.Defaulted || a.Value.String() != tc.wantValue {
				t.Errorf("timed out with %+v, want the default %s", a, tc.wantValue)
			}
		})
	}
}

// TestFieldAnswers reads valid, boundary and invalid answers of every
// type: a valid one carries its typed value, an invalid one is refused
// with the field's rule in words.
func TestFieldAnswers(t *testing.T) {
	port := Field{Type: FieldInteger, Title: "Port", Minimum: fp(1024), Maximum: fp(65535)}
	ratio := Field{Type: FieldNumber, Minimum: fp(-1), Maximum: fp(0.5)}
	name := Field{Type: FieldString, Title: "Name", MinLength: ip(2), MaxLength: ip(5)}
	email := Field{Type: FieldString, Title: "Email", Format: FormatEmail}
	uri := Field{Type: FieldString, Format: FormatURI}
	date := Field{Type: FieldString, Title: "Start date", Format: FormatDate}
	when := Field{Type: FieldString, Format: FormatDateTime}
	yes := Field{Type: FieldBoolean, Title: "Deploy"}
	level := Field{Type: FieldEnum, Title: "Level", Choices: choices("lo=Low", "hi=High")}
	regions := Field{Type: FieldMultiEnum, Title: "Regions", Choices: choices("eu", "us", "ap"), MinItems: ip(2), MaxItems: ip(2)}
	tests := []struct {
		name   string
		field  Field
		choice string
		value  string // the typed value; "" when refused
		refuse string
	}{
		{"integer", port, "8080", "8080", ""},
		{"integer at the minimum", port, "1024", "1024", ""},
		{"integer at the maximum", port, "65535", "65535", ""},
		{"integer as other", port, "other 65535", "65535", ""},
		{"integer below", port, "1023", "", "Port must be a whole number from 1024 to 65535; nothing was recorded."},
		{"integer above", port, "65536", "", "Port must be a whole number from 1024 to 65535"},
		{"integer fraction", port, "8080.5", "", "must be a whole number"},
		{"integer words", port, "eighty", "", "must be a whole number"},
		{"integer with a comma", port, "8,080", "", "must be a whole number"},
		{"integer hex", port, "0x1F90", "", "must be a whole number"},
		{"number", ratio, "0.25", "0.25", ""},
		{"number at the minimum", ratio, "-1", "-1", ""},
		{"number at the maximum", ratio, "0.5", "0.5", ""},
		{"number exponent", ratio, "1e-3", "0.001", ""},
		{"number above", ratio, "0.51", "", "The answer must be a number from -1 to 0.5"},
		{"number infinity", ratio, "Inf", "", "must be a number"},
		{"string", name, "Ana", `"Ana"`, ""},
		{"string at min length", name, "Al", `"Al"`, ""},
		{"string at max length", name, "Émile", `"Émile"`, ""},
		{"string too short", name, "A", "", "Name must be text of 2 to 5 characters"},
		{"string too long", name, "Anabel", "", "Name must be text of 2 to 5 characters"},
		{"email", email, "ana@example.com", `"ana@example.com"`, ""},
		{"email with a name", email, "Ana <ana@example.com>", "", "Email must be an email address such as ana@example.com"},
		{"email without @", email, "ana.example.com", "", "Email must be an email address"},
		{"uri", uri, "https://example.com/x?y=1", `"https://example.com/x?y=1"`, ""},
		{"uri relative", uri, "/x/y", "", "must be a URI such as https://example.com/page"},
		{"uri with a space", uri, "https://example.com/a b", "", "must be a URI"},
		{"date", date, "2026-12-03", `"2026-12-03"`, ""},
		{"date leap day", date, "2028-02-29", `"2028-02-29"`, ""},
		{"date not a day", date, "2026-02-30", "", "Start date must be a date such as 2026-12-03"},
		{"date in words", date, "3 Dec 2026", "", "Start date must be a date such as 2026-12-03"},
		{"date-time", when, "2026-12-03T14:30:00Z", `"2026-12-03T14:30:00Z"`, ""},
		{"date-time with offset", when, "2026-12-03T14:30:00.5+01:00", `"2026-12-03T14:30:00.5+01:00"`, ""},
		{"date-time without zone", when, "2026-12-03T14:30", "", "must be a date and time such as 2026-12-03T14:30:00Z"},
		{"boolean yes", yes, "Yes", "true", ""},
		{"boolean by number", yes, "2", "false", ""},
		{"boolean true", yes, "true", "true", ""},
		{"boolean n", yes, "n", "false", ""},
		{"boolean maybe", yes, "maybe", "", `"maybe" is not an option here: choose 1–2`},
		{"boolean both", yes, "1,2", "", "takes one answer"},
		{"enum by title", level, "High", `"hi"`, ""},
		{"enum by value", level, "lo", `"lo"`, ""},
		{"enum by number", level, "2", `"hi"`, ""},
		{"enum out of range", level, "3", "", "3 is not an option here: choose 1–2"},
		{"enum free text", level, "other Medium", "", "free text is not accepted here"},
		{"multi exactly two", regions, "1,3", `["eu","ap"]`, ""},
		{"multi by values", regions, "us, ap", `["us","ap"]`, ""},
		{"multi one", regions, "2", "", "Regions must be exactly 2 of the choices; nothing was recorded."},
		{"multi three", regions, "1,2,3", "", "Regions must be exactly 2 of the choices"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.field
			ps, err := validateRequest(&AskRequest{Question: "Which value?", Field: &f})
			if err != nil {
				t.Fatal(err)
			}
			a, err := Interpret(ps[0], ParseChoice(tc.choice))
			if tc.refuse != "" {
				if err == nil || !strings.Contains(err.Error(), tc.refuse) {
					t.Fatalf("Interpret(%q) = %+v, %v; want a refusal with %q", tc.choice, a, err, tc.refuse)
				}
				return
			}
			if err != nil || a.Value.String() != tc.value {
				t.Fatalf("Interpret(%q) = value %s, %v; want %s", tc.choice, a.Value, err, tc.value)
			}
			data, _ := json.Marshal(a)
			if !strings.Contains(string(data), `"value":`+tc.value) {
				t.Errorf("the answer's JSON %s has no typed value %s", data, tc.value)
			}
		})
	}
	t.Run("skip", func(t *testing.T) {
		f := port
		ps, _ := validateRequest(&AskRequest{Question: "Which value?", Field: &f})
		a, err := Interpret(ps[0], ParseChoice("skip"))
		if err != nil || !a.Skipped || !a.Value.IsZero() {
			t.Fatalf("skip gave %+v, %v", a, err)
		}
	})
}

// TestExpectText checks the line a card shows for what a prompt takes.
func TestExpectText(t *testing.T) {
	for _, tc := range []struct {
		field *Field
		want  string
	}{
		{nil, ""},
		{&Field{Type: FieldInteger, Minimum: fp(1024), Maximum: fp(65535)}, "Reply with a whole number from 1024 to 65535"},
		{&Field{Type: FieldNumber, Minimum: fp(0)}, "Reply with a number of at least 0"},
		{&Field{Type: FieldNumber, Maximum: fp(2.5)}, "Reply with a number of at most 2.5"},
		{&Field{Type: FieldString}, ""},
		{&Field{Type: FieldString, MaxLength: ip(1)}, "Reply with text of at most 1 character"},
		{&Field{Type: FieldString, MinLength: ip(3), MaxLength: ip(3)}, "Reply with text of exactly 3 characters"},
		{&Field{Type: FieldString, Format: FormatEmail, MaxLength: ip(40)}, "Reply with an email address such as ana@example.com, of at most 40 characters"},
		{&Field{Type: FieldString, Format: FormatDate}, "Reply with a date such as 2026-12-03"},
		{&Field{Type: FieldBoolean}, ""},
		{&Field{Type: FieldEnum, Choices: choices("a", "b")}, ""},
		{&Field{Type: FieldMultiEnum, Choices: choices("a", "b")}, ""},
		{&Field{Type: FieldMultiEnum, Choices: choices("a", "b", "c"), MaxItems: ip(2)}, "Choose at most 2 of the choices"},
	} {
		if got := ExpectText(Prompt{Question: "q", Field: tc.field}); got != tc.want {
			t.Errorf("ExpectText(%+v) = %q, want %q", tc.field, got, tc.want)
		}
	}
}

// TestValueJSON checks that a value reads any JSON and writes it
// compact, as json.Marshal writes it, and that no value is left out.
func TestValueJSON(t *testing.T) {
	var a struct {
		V Value `json:"v,omitzero"`
	}
	if err := json.Unmarshal([]byte(`{"v": [ "a<b" , 1.50 ]}`), &a); err != nil {
		t.Fatal(err)
	}
	if got := a.V.String(); got != `["a\u003cb",1.50]` {
		t.Errorf("value = %s", got)
	}
	if err := json.Unmarshal([]byte(`{"v": null}`), &a); err != nil || !a.V.IsZero() {
		t.Errorf("null gave %s, %v", a.V, err)
	}
	if data, _ := json.Marshal(a); string(data) != `{}` {
		t.Errorf("no value is written %s", data)
	}
	if err := json.Unmarshal([]byte(`{"v": [1,}`), &a); err == nil {
		t.Error("bad JSON was taken")
	}
}
