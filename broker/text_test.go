package broker

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// A character class an agent might slip into text, and whether each kind
// of field takes it.
type charCase struct {
	name                string
	s                   string
	prose, line, asName bool   // accepted in a question, a description, a label
	want                string // the start of the refusal
}

var charCases = []charCase{
	{"NUL", "\x00", false, false, false, "contains a control character (U+0000)"},
	{"ESC sequence", "\x1b[31m", false, false, false, "contains a control character (U+001B)"},
	{"bell", "\a", false, false, false, "contains a control character (U+0007)"},
	{"lone carriage return", "\r", false, false, false, "contains a control character (U+000D)"},
	{"DEL", "\x7f", false, false, false, "contains a control character (U+007F)"},
	{"C1 CSI", "\u009b31m", false, false, false, "contains a control character (U+009B)"},
	{"C1 NEL", "\u0085", false, false, false, "contains a control character (U+0085)"},
	{"newline", "\n", true, false, false, "must be one line: contains a line break (U+000A)"},
	{"tab", "\t", true, false, false, "must be one line: contains a tab (U+0009)"},
	{"line separator", "\u2028", false, false, false, "contains a line or paragraph separator (U+2028)"},
	{"paragraph separator", "\u2029", false, false, false, "contains a line or paragraph separator (U+2029)"},
	{"right-to-left override", "\u202e", false, false, false, "contains a bidirectional embedding, override or isolate (U+202E)"},
	{"left-to-right embedding", "\u202a", false, false, false, "contains a bidirectional embedding, override or isolate (U+202A)"},
	{"first strong isolate", "\u2068", false, false, false, "contains a bidirectional embedding, override or isolate (U+2068)"},
	{"pop directional isolate", "\u2069", false, false, false, "contains a bidirectional embedding, override or isolate (U+2069)"},
	{"zero-width space", "\u200b", true, true, false, "contains an invisible formatting character (U+200B)"},
	{"zero-width non-joiner", "\u200c", true, true, false, "contains an invisible formatting character (U+200C)"},
	{"zero-width joiner", "\u200d", true, true, false, "contains an invisible formatting character (U+200D)"},
	{"word joiner", "\u2060", true, true, false, "contains an invisible formatting character (U+2060)"},
	{"byte order mark", "\ufeff", true, true, false, "contains an invisible formatting character (U+FEFF)"},
	{"left-to-right mark", "\u200e", true, true, false, "contains an invisible formatting character (U+200E)"},
	{"right-to-left mark", "\u200f", true, true, false, "contains an invisible formatting character (U+200F)"},
	{"soft hyphen", "\u00ad", true, true, false, "contains an invisible formatting character (U+00AD)"},
	{"tag character", "\U000E0041", true, true, false, "contains an invisible formatting character (U+E0041)"},
	{"invalid UTF-8", "\xff", false, false, false, "is not valid UTF-8"},
	{"a truncated sequence", "\xe2\x80", false, false, false, "is not valid UTF-8"},
	{"emoji with variation selector", "❤️", true, true, true, ""},
	{"CJK", "数据库", true, true, true, ""},
	{"combining accent", "e\u0301", true, true, true, ""},
	{"replacement character itself", "\uFFFD", true, true, true, ""},
}

// textField is one text field of a request an agent writes, the field its
// error names, and which kind of text it is.
type textField struct {
	field string
	kind  textKind
	set   func(r *AskRequest, s string)
}

var textFields = []textField{
	{"question", kindProse, func(r *AskRequest, s string) { r.Question = "Ship " + s + "it?" }},
	{"questions[1].question", kindProse, func(r *AskRequest, s string) {
		r.Questions = []Prompt{{Question: "First?"}, {Question: "Second " + s + "one?"}}
		r.Question, r.Options = "", nil
	}},
	{"header", kindName, func(r *AskRequest, s string) { r.Header = "Dep" + s + "loy" }},
	{"options[0].label", kindName, func(r *AskRequest, s string) { r.Options[0].Label = "Ap" + s + "prove" }},
	{"options[1].description", kindLine, func(r *AskRequest, s string) { r.Options[1].Description = "stop " + s + "here" }},
	{"questions[0].options[1].label", kindName, func(r *AskRequest, s string) {
		r.Questions = []Prompt{{Question: "First?", Options: []Option{{Label: "Yes"}, {Label: "N" + s + "o"}}}, {Question: "Second?"}}
		r.Question, r.Options = "", nil
	}},
	{"default", kindName, func(r *AskRequest, s string) { r.Default = StringList{"Wait" + s + "ing"} }},
	{"context", kindProse, func(r *AskRequest, s string) { r.Context = "The build " + s + "failed." }},
	{"session_id", kindName, func(r *AskRequest, s string) { r.SessionID = "s" + s + "1" }},
	{"tool_call_id", kindName, func(r *AskRequest, s string) { r.ToolCallID = "t" + s + "1" }},
	{"route", kindName, func(r *AskRequest, s string) { r.Route = "o" + s + "ps" }},
	{"responders[0]", kindName, func(r *AskRequest, s string) { r.Responders = []string{"chat:a" + s + "na"} }},
}

// TestAgentTextCharacters checks every text field an agent writes against
// every class of character: what is refused names the field, the
// character and its position; what is accepted is stored.
func TestAgentTextCharacters(t *testing.T) {
	for _, f := range textFields {
		for _, c := range charCases {
			t.Run(f.field+"/"+c.name, func(t *testing.T) {
				r := AskRequest{Question: "Ship it?", Options: []Option{{Label: "Approve"}, {Label: "Reject"}}}
				f.set(&r, c.s)
				ok := map[textKind]bool{kindProse: c.prose, kindLine: c.line, kindName: c.asName}[f.kind]
				_, err := validateRequest(&r)
				if ok {
					if err != nil {
						t.Fatalf("refused: %v", err)
					}
					return
				}
				var fe *FieldError
				if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err = %v, want a *FieldError", err)
				}
				if fe.Field != f.field || !strings.Contains(fe.Message, c.want) {
					t.Fatalf("got %s: %s\nwant %s: %s…", fe.Field, fe.Message, f.field, c.want)
				}
			})
		}
	}
}

func TestRefusalSaysWhere(t *testing.T) {
	r := AskRequest{Question: "Deploy\x1b[31m now?"}
	_, err := validateRequest(&r)
	if err == nil || err.Error() != "question: contains a control character (U+001B) at character 7; only newline and tab are allowed" {
		t.Fatalf("err = %v", err)
	}
}

// TestAgentTextNormalised checks what is stored of text that is accepted:
// NFC, Windows line ends as newlines, the rest as sent.
func TestAgentTextNormalised(t *testing.T) {
	r := AskRequest{
		Question: "Deploy the cafe\u0301 menu?\r\n\tIt has two lines.",
		Header:   "Cafe\u0301",
		Options:  []Option{{Label: "Cafe\u0301 (Recommended)", Description: "Ame\u0301lie's choice 👩\u200d💻", Prefill: "raw\r\n\x1b kept"}, {Label: "数据库"}},
		Default:  StringList{"CAFE\u0301"},
		Context:  "Line one\r\nLine two\twith a tab, emoji 👨\u200d👩\u200d👧 and Persian می\u200cخواهم",
	}
	prompts, err := validateRequest(&r)
	if err != nil {
		t.Fatal(err)
	}
	p := prompts[0]
	for _, c := range []struct{ name, got, want string }{
		{"question", p.Question, "Deploy the café menu?\n\tIt has two lines."},
		{"header", p.Header, "Café"},
		{"label", p.Options[0].Label, "Café (Recommended)"},
		{"description", p.Options[0].Description, "Amélie's choice 👩\u200d💻"},
		{"prefill, returned to the agent untouched", p.Options[0].Prefill, "raw\r\n\x1b kept"},
		{"CJK label", p.Options[1].Label, "数据库"},
		{"default, stored as the label it names", p.Default[0], "Café (Recommended)"},
		{"context", r.Context, "Line one\nLine two\twith a tab, emoji 👨\u200d👩\u200d👧 and Persian می\u200cخواهم"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if k := OptionIndex(p, r.Default[0]); k != 0 {
		t.Errorf("the default names option %d, want 0", k)
	}
}

// TestDuplicateLabelsAfterNormalising checks that labels that look alike
// are one label: the same after NFC and full case folding, or the same
// but for an invisible character (refused outright).
func TestDuplicateLabelsAfterNormalising(t *testing.T) {
	tests := []struct {
		a, b string
		msg  string
	}{
		{"Approve", "APPROVE", `duplicate label "APPROVE"`},
		{"Café", "Cafe\u0301", `duplicate label "Café"`},
		{"Straße", "STRASSE", `duplicate label "STRASSE"`},
		{"ΣΑΣ", "σας", `duplicate label "σας"`},
		{"Approve", "Approve\u200b", "invisible formatting character (U+200B)"},
		{"Approve", "\u202eevorppA", "bidirectional embedding, override or isolate (U+202E)"},
		{"Approve", "Appro\u00adve", "invisible formatting character (U+00AD)"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q %q", tt.a, tt.b), func(t *testing.T) {
			r := AskRequest{Question: "q", Options: []Option{{Label: tt.a}, {Label: tt.b}}}
			_, err := validateRequest(&r)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != "options[1].label" || !strings.Contains(fe.Message, tt.msg) {
				t.Fatalf("err = %v, want options[1].label: …%s…", err, tt.msg)
			}
		})
	}
}

// TestTypedAnswersMatchLabelsLikeDuplicates checks that a person's text
// picks a label in the same form duplicates are compared in.
func TestTypedAnswersMatchLabelsLikeDuplicates(t *testing.T) {
	p := Prompt{Question: "q", Options: []Option{{Label: "Straße (Recommended)"}, {Label: "Café"}}}
	for typed, want := range map[string]int{"strasse": 0, "STRASSE (recommended)": 0, "cafe\u0301": 1, "CAFÉ": 1, "cafe": -1} {
		if got := OptionIndex(p, typed); got != want {
			t.Errorf("OptionIndex(%q) = %d, want %d", typed, got, want)
		}
	}
}

func TestCheckReason(t *testing.T) {
	tests := []struct {
		reason, want, err string
	}{
		{"the deploy was rolled back", "the deploy was rolled back", ""},
		{"Cafe\u0301 closed", "Café closed", ""},
		{"", "", ""},
		{"done\nAnswered by ana: Approve", "", "reason: must be one line: contains a line break (U+000A) at character 5"},
		{"\x1b]0;owned\a", "", "reason: contains a control character (U+001B) at character 1"},
		{"ok\u202e", "", "reason: contains a bidirectional embedding, override or isolate (U+202E)"},
		{strings.Repeat("x", MaxReasonChars+1), "", "reason: at most 500 characters, got 501"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			got, err := checkReason(tt.reason)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) || !errors.Is(err, ErrInvalid) {
					t.Fatalf("err = %v, want %s…", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("checkReason = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestCheckPersonText(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"not now", "not now", ""},
		{"two\r\nlines\rhere\ttab", "two\nlines\nhere\ttab", ""},
		{"RTL ok: \u202eeno", "RTL ok: \u202eeno", ""},
		{"red \x1b[31m", "", "the text contains a control character (U+001B) at character 5"},
		{"nul\x00", "", "the text contains a control character (U+0000) at character 4"},
		{"c1 \u009b", "", "the text contains a control character (U+009B)"},
		{"bad \xff", "", "the text is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := CheckPersonText(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want …%s…", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CheckPersonText = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestCleanName(t *testing.T) {
	for in, want := range map[string]string{
		"Ana":                      "Ana",
		"Ana\nAnswered by bob":     "Ana Answered by bob",
		"\x1b[31mAna\x1b[0m":       "[31mAna[0m",
		"\u202eanA":                "anA",
		"أحمد":                     "أحمد",
		"bad\xffbyte":              "bad\uFFFDbyte",
		"tab\there\u2028and\u0085": "tab here and",
	} {
		if got := cleanName(in); got != want {
			t.Errorf("cleanName(%q) = %q, want %q", in, got, want)
		}
	}
}
