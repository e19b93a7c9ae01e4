package broker

import (
	"errors"
	"strings"
	"testing"
)

func TestPromptRefRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		ref            PromptRef
		target, string string
	}{
		{PromptRef{ID: "k7m2qx", Index: 0, Count: 1}, "k7m2qx", "k7m2qx.1/1"},
		{PromptRef{ID: "k7m2qx", Index: 1, Count: 3}, "k7m2qx.2", "k7m2qx.2/3"},
		{PromptRef{ID: "k7m2qx", Index: 3, Count: 4}, "k7m2qx.4", "k7m2qx.4/4"},
	} {
		if got := tt.ref.Target(); got != tt.target {
			t.Errorf("%+v.Target() = %q, want %q", tt.ref, got, tt.target)
		}
		if got := tt.ref.String(); got != tt.string {
			t.Errorf("%+v.String() = %q, want %q", tt.ref, got, tt.string)
		}
		back, err := ParsePromptRef(tt.ref.String())
		if err != nil || back != tt.ref {
			t.Errorf("ParsePromptRef(%q) = %+v, %v; want %+v", tt.string, back, err, tt.ref)
		}
		// The grammar reads the target as the same question and prompt.
		cmd, err := Parse(FormatOption(tt.ref, 0))
		if err != nil || cmd.ID != tt.ref.ID || (tt.ref.Count > 1 && cmd.Prompt != tt.ref.Index+1) || (tt.ref.Count == 1 && cmd.Prompt != 0) {
			t.Errorf("Parse(FormatOption(%+v)) = %+v, %v", tt.ref, cmd, err)
		}
	}
	q := &Question{ID: "k7m2qx", Prompts: make([]Prompt, 3)}
	if r := q.Ref(2); r != (PromptRef{ID: "k7m2qx", Index: 2, Count: 3}) || !r.Valid() {
		t.Errorf("q.Ref(2) = %+v", r)
	}
}

func TestParsePromptRefRefusals(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "has no prompt count"},
		{"k7m2qx.2", "has no prompt count"},
		{"k7m2qx/3", "has no prompt number"},
		{"k7m2q.2/3", "is not a question id"},
		{"k7m2qx.0/3", "the prompt number after the dot must be 1–4"},
		{"k7m2qx.5/9", "the prompt number after the dot must be 1–4"},
		{"k7m2qx.2/0", "the prompt count after the slash must be 1–4"},
		{"k7m2qx.2/5", "the prompt count after the slash must be 1–4"},
		{"k7m2qx.2/x", "the prompt count after the slash must be 1–4"},
		{"k7m2qx.2/03", "the prompt count after the slash must be 1–4"},
		{"k7m2qx.3/2", "names prompt 3 of a question with 2"},
	} {
		r, err := ParsePromptRef(tt.in)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) || r != (PromptRef{}) {
			t.Errorf("ParsePromptRef(%q) = %+v, %v; want an error containing %q", tt.in, r, err, tt.want)
		}
	}
	for _, r := range []PromptRef{{ID: "k7m2qx", Index: 1, Count: 1}, {ID: "k7m2qx", Index: -1, Count: 2}, {ID: "nope", Index: 0, Count: 1}, {ID: "k7m2qx", Count: 5}} {
		if r.Valid() {
			t.Errorf("%+v is valid", r)
		}
	}
}

func TestNextOpenAndGiven(t *testing.T) {
	a := &Answer{Selected: []string{"A"}}
	b := &Answer{Skipped: true}
	for _, tt := range []struct {
		name     string
		prompts  int
		progress []*Answer
		status   Status
		next     int
		open     []bool
	}{
		{"single, none answered", 1, nil, StatusPending, 0, []bool{true}},
		{"dialog, none answered", 3, nil, StatusPending, 0, []bool{true, true, true}},
		{"dialog, first answered", 3, []*Answer{a}, StatusPending, 1, []bool{false, true, true}},
		{"dialog, a gap", 3, []*Answer{a, nil, b}, StatusPending, 1, []bool{false, true, false}},
		{"dialog, all answered", 2, []*Answer{a, b}, StatusPending, -1, []bool{false, false}},
		{"resolved, nothing in progress", 2, nil, StatusTimedOut, 0, []bool{false, false}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := &Question{ID: "k7m2qx", Prompts: make([]Prompt, tt.prompts), Progress: tt.progress, Status: tt.status}
			if got := q.NextOpen(); got != tt.next {
				t.Errorf("NextOpen() = %d, want %d", got, tt.next)
			}
			for i, want := range tt.open {
				if got := q.Open(i); got != want {
					t.Errorf("Open(%d) = %v, want %v", i, got, want)
				}
				var given *Answer
				if i < len(tt.progress) {
					given = tt.progress[i]
				}
				if got := q.Given(i); got != given {
					t.Errorf("Given(%d) = %v, want %v", i, got, given)
				}
			}
			if q.Open(-1) || q.Open(tt.prompts) || q.Given(-1) != nil || q.Given(tt.prompts) != nil {
				t.Errorf("a prompt outside the question is open or answered")
			}
		})
	}
}

func TestParseToggle(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Command
		err  string
	}{
		{in: "/toggle k7m2qx 2", want: Command{Verb: VerbToggle, ID: "k7m2qx", Option: 2}},
		{in: "/toggle@askbridge_bot k7m2qx.3 4", want: Command{Verb: VerbToggle, ID: "k7m2qx", Prompt: 3, Option: 4}},
		{in: "!toggle K7M2QX 1", want: Command{Verb: VerbToggle, ID: "k7m2qx", Option: 1}},
		{in: "toggle k7m2qx.1 1 ", want: Command{Verb: VerbToggle, ID: "k7m2qx", Prompt: 1, Option: 1}},
		{in: "/toggle", err: "/toggle needs a question id, e.g. /toggle k7m2qx 2"},
		{in: "/toggle k7m2qx", err: "/toggle k7m2qx needs the number of one option, e.g. /toggle k7m2qx 2"},
		{in: "/toggle k7m2qx 0", err: "takes the number of one option, 1–4"},
		{in: "/toggle k7m2qx 5", err: "takes the number of one option, 1–4"},
		{in: "/toggle k7m2qx 1,3", err: `not "1,3"`},
		{in: "/toggle k7m2qx 1 3", err: `not "1 3"`},
		{in: "/toggle k7m2qx Redis", err: `not "Redis"`},
		{in: "/toggle k7m2qx.9 1", err: "the prompt number after the dot must be 1–4"},
		{in: "/toggle nope 1", err: `"nope" is not a question id`},
		{in: "/pending k7m2qx", want: Command{Verb: VerbPending, ID: "k7m2qx"}},
		{in: "/pending", want: Command{Verb: VerbPending}},
		{in: "/pending k7m2qx.2", err: "/pending takes a question id without a prompt number"},
		{in: "/pending k7m2qx now", err: "/pending takes one question id and nothing after it"},
		{in: "/pending everything", err: `"everything" is not a question id`},
	} {
		got, err := Parse(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		case tt.err != "" && (!errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("Parse(%q) error = %v; want one containing %q", tt.in, err, tt.err)
		}
	}
	if got := FormatToggle(PromptRef{ID: "k7m2qx", Index: 1, Count: 2}, 2); got != "/toggle k7m2qx.2 3" {
		t.Errorf("FormatToggle = %q", got)
	}
	if got := FormatToggle(PromptRef{ID: "k7m2qx", Count: 1}, 0); got != "/toggle k7m2qx 1" {
		t.Errorf("FormatToggle = %q", got)
	}
}
