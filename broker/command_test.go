package broker

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		text string
		want Command
		err  string
	}{
		{"/answer k7m2qx 2", Command{Verb: VerbAnswer, ID: "k7m2qx", Choice: "2"}, ""},
		{"  answer K7M2QX   1,3 ", Command{Verb: VerbAnswer, ID: "k7m2qx", Choice: "1,3"}, ""},
		{"!answer k7m2qx other Not sure yet", Command{Verb: VerbAnswer, ID: "k7m2qx", Choice: "other Not sure yet"}, ""},
		{"/answer@askbridge_bot k7m2qx.2 skip", Command{Verb: VerbAnswer, ID: "k7m2qx", Prompt: 2, Choice: "skip"}, ""},
		{"/ANSWER k7m2qx Postgres (Recommended)", Command{Verb: VerbAnswer, ID: "k7m2qx", Choice: "Postgres (Recommended)"}, ""},
		{"/answer k7m2qx 1,3 other and tags", Command{Verb: VerbAnswer, ID: "k7m2qx", Choice: "1,3 other and tags"}, ""},
		{"/decline k7m2qx not my call", Command{Verb: VerbDecline, ID: "k7m2qx", Text: "not my call"}, ""},
		{"/decline k7m2qx", Command{Verb: VerbDecline, ID: "k7m2qx"}, ""},
		{"/discuss k7m2qx which load?", Command{Verb: VerbDiscuss, ID: "k7m2qx", Text: "which load?"}, ""},
		{"/pending", Command{Verb: VerbPending}, ""},
		{"/pending@bot", Command{Verb: VerbPending}, ""},
		{"/answer", Command{}, "/answer needs a question id, e.g. /answer k7m2qx 2"},
		{"/answer k7m2qx", Command{}, "/answer k7m2qx needs a choice"},
		{"/answer k7m2q 2", Command{}, `"k7m2q" is not a question id`},
		{"/answer k0m2qx 2", Command{}, `"k0m2qx" is not a question id`},
		{"/answer k7m2qx.5 2", Command{}, "the prompt number after the dot must be 1–4"},
		{"/answer k7m2qx.x 2", Command{}, "the prompt number after the dot must be 1–4"},
		{"/decline k7m2qx.2", Command{}, "/decline takes a question id without a prompt number"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, err := Parse(tt.text)
			if tt.err != "" {
				if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	for _, s := range []string{"", "hello", "2", "/start", "answers k7m2qx 2", "/answerk7m2qx 2"} {
		if _, err := Parse(s); !errors.Is(err, ErrNotCommand) {
			t.Errorf("Parse(%q) = %v, want ErrNotCommand", s, err)
		}
	}
}

func TestFormatRoundTrips(t *testing.T) {
	single := &Question{ID: "k7m2qx", Prompts: []Prompt{{Question: "q"}}}
	dialog := &Question{ID: "k7m2qx", Prompts: []Prompt{{Question: "a"}, {Question: "b"}}}
	for _, tc := range []struct {
		got, want string
	}{
		{FormatOption(single.Ref(0), 1), "/answer k7m2qx 2"},
		{FormatOption(dialog.Ref(1), 0, 2), "/answer k7m2qx.2 1,3"},
		{FormatOther(single.Ref(0), "free words"), "/answer k7m2qx other free words"},
		{FormatSkip(dialog.Ref(0)), "/answer k7m2qx.1 skip"},
		{FormatSkip(single.Ref(0)), "/answer k7m2qx skip"},
		{FormatOptionsOther(single.Ref(0), []int{1}, "and tags"), "/answer k7m2qx 2 other and tags"},
		{FormatOptionsOther(dialog.Ref(1), []int{0, 2}, " and tags "), "/answer k7m2qx.2 1,3 other and tags"},
		{FormatOptionsOther(single.Ref(0), nil, "free words"), "/answer k7m2qx other free words"},
		{FormatOptionsOther(single.Ref(0), []int{0, 2}, ""), "/answer k7m2qx 1,3"},
		{FormatDecline(single.ID, ""), "/decline k7m2qx"},
		{FormatDiscuss(single.ID, "why?"), "/discuss k7m2qx why?"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
		if _, err := Parse(tc.got); err != nil {
			t.Errorf("formatter output %q does not parse: %v", tc.got, err)
		}
	}
}

// TestParseChoice: every form of a choice, and the note forms that stay
// what they were before notes existed.
func TestParseChoice(t *testing.T) {
	tests := []struct {
		in   string
		want Choice
	}{
		{"2", Choice{Kind: ChoiceNumbers, Numbers: []int{2}, Raw: "2"}},
		{"1,3", Choice{Kind: ChoiceNumbers, Numbers: []int{1, 3}, Raw: "1,3"}},
		{"skip", Choice{Kind: ChoiceSkip, Raw: "skip"}},
		{"other free words", Choice{Kind: ChoiceOther, Text: "free words", Raw: "other free words"}},
		{"1,3 other and tags", Choice{Kind: ChoiceNumbersOther, Numbers: []int{1, 3}, Text: "and tags", Raw: "1,3 other and tags"}},
		{"2 OTHER and  tags", Choice{Kind: ChoiceNumbersOther, Numbers: []int{2}, Text: "and  tags", Raw: "2 OTHER and  tags"}},
		{"1, 3 other other things", Choice{Kind: ChoiceNumbersOther, Numbers: []int{1, 3}, Text: "other things", Raw: "1, 3 other other things"}},
		{"1,3\nother\nline one\nline two", Choice{Kind: ChoiceNumbersOther, Numbers: []int{1, 3}, Text: "line one\nline two", Raw: "1,3\nother\nline one\nline two"}},
		{"2 other", Choice{Kind: ChoiceNumbersOther, Numbers: []int{2}, Raw: "2 other"}},
		{"2 others", Choice{Kind: ChoiceText, Text: "2 others", Raw: "2 others"}},
		{"Search other and tags", Choice{Kind: ChoiceText, Text: "Search other and tags", Raw: "Search other and tags"}},
		{"other", Choice{Kind: ChoiceText, Text: "other", Raw: "other"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := ParseChoice(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseChoice(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		id := NewID()
		if !ValidID(id) {
			t.Fatalf("NewID() = %q is not valid", id)
		}
		for _, c := range "0o1li" {
			if strings.ContainsRune(id, c) {
				t.Fatalf("id %q has the look-alike %q", id, c)
			}
		}
		seen[id] = true
	}
	if len(seen) < 9990 {
		t.Fatalf("only %d distinct ids of 10000", len(seen))
	}
}

func TestInterpret(t *testing.T) {
	no := false
	p := Prompt{Question: "q", Options: []Option{{Label: "A b"}, {Label: "C"}}, Other: &no}
	if _, err := Interpret(p, ParseChoice("other x")); err == nil || err.Error() != "free text is not accepted here: choose 1–2" {
		t.Fatalf("other with other:false: %v", err)
	}
	if _, err := Interpret(p, ParseChoice("zzz")); err == nil || err.Error() != `"zzz" is not an option here: choose 1–2` {
		t.Fatalf("unknown label: %v", err)
	}
	if a, err := Interpret(p, ParseChoice("a B")); err != nil || a.Selected[0] != "A b" {
		t.Fatalf("label: %+v %v", a, err)
	}
	free := Prompt{Question: "How many replicas?"}
	if a, err := Interpret(free, ParseChoice("3")); err != nil || a.CustomText != "3" {
		t.Fatalf("number as free text: %+v %v", a, err)
	}
	multi := Prompt{Question: "q", MultiSelect: true, Options: []Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}}
	if a, err := Interpret(multi, ParseChoice("c, a")); err != nil || len(a.Selected) != 2 || a.Selected[0] != "A" {
		t.Fatalf("labels with commas: %+v %v", a, err)
	}
	if a, err := Interpret(multi, ParseChoice("3 1 3")); err != nil || len(a.Selected) != 2 || a.Selected[1] != "C" {
		t.Fatalf("numbers with spaces and repeats: %+v %v", a, err)
	}
}

// TestInterpretNotes: options and a note together give selected plus
// custom_text; what cannot work is refused with what would.
func TestInterpretNotes(t *testing.T) {
	no := false
	single := Prompt{Question: "q", Options: []Option{{Label: "Search", Action: ActionEndTurn, Prefill: "p"}, {Label: "Browse"}}}
	multi := Prompt{Question: "q", MultiSelect: true, Options: []Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}}
	closed := Prompt{Question: "q", MultiSelect: true, Options: []Option{{Label: "A"}, {Label: "B"}}, Other: &no}
	free := Prompt{Question: "How many replicas?"}
	numbered := Prompt{Question: "q", Options: []Option{{Label: "1 other thing"}, {Label: "B"}}, Other: &no}
	tests := []struct {
		name   string
		p      Prompt
		choice string
		want   Answer
		err    string
	}{
		{"option and note", single, "1 other and tags", Answer{Selected: []string{"Search"}, CustomText: "and tags", Action: ActionEndTurn, Prefill: "p"}, ""},
		{"options and note", multi, "3,1 other and tags", Answer{Selected: []string{"A", "C"}, CustomText: "and tags"}, ""},
		{"other false refuses the note", closed, "1,2 other and tags", Answer{}, "notes are not accepted here: choose 1–2, without other <text>"},
		{"empty note", multi, "1,3 other", Answer{}, "the note is missing: write it after other, as in 1,3 other <text>"},
		{"out of range with a note", multi, "1,7 other x", Answer{}, "7 is not an option here: choose 1–3"},
		{"two on single select with a note", single, "1,2 other x", Answer{}, "this question takes one answer: choose one of 1–2"},
		{"no options: all free text", free, "2 other than the database", Answer{CustomText: "2 other than the database"}, ""},
		{"a label that looks like a note", numbered, "1 other thing", Answer{Selected: []string{"1 other thing"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Interpret(tt.p, ParseChoice(tt.choice))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Interpret(%q): %v", tt.choice, err)
			}
			if tt.want.Selected == nil {
				tt.want.Selected = []string{}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Interpret(%q) = %+v, want %+v", tt.choice, got, tt.want)
			}
			if tt.p.AllowsOther() && len(got.Selected) > 0 && got.CustomText != "" {
				if v := AnswerValue(got); !strings.Contains(v, "note: “"+tt.want.CustomText+"”") {
					t.Fatalf("people read %q, want the note named", v)
				}
			}
		})
	}
}
