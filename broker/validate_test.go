package broker

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestValidateRequest(t *testing.T) {
	opts := func(labels ...string) []Option {
		var out []Option
		for _, l := range labels {
			out = append(out, Option{Label: l})
		}
		return out
	}
	no := false
	dur := func(d time.Duration) *Duration { v := Duration(d); return &v }
	prompt := func(mod func(*Prompt)) []Prompt {
		p := Prompt{Question: "Which?", Options: opts("A", "B")}
		mod(&p)
		return []Prompt{p, {Question: "Second?"}}
	}
	tests := []struct {
		name  string
		req   AskRequest
		field string
		msg   string
	}{
		{"no prompts", AskRequest{}, "questions", "at least one question is required"},
		{"five prompts", AskRequest{Questions: []Prompt{{Question: "1"}, {Question: "2"}, {Question: "3"}, {Question: "4"}, {Question: "5"}}}, "questions", "at most 4 questions per dialog, got 5"},
		{"empty question", AskRequest{Question: " ", Options: opts("A", "B")}, "question", "must not be empty"},
		{"one option", AskRequest{Question: "q", Options: opts("A")}, "options", "give no options (free text) or 2–4 options, got 1"},
		{"five options", AskRequest{Question: "q", Options: opts("A", "B", "C", "D", "E")}, "options", "got 5"},
		{"duplicate labels", AskRequest{Question: "q", Options: opts("Yes", "yes")}, "options[1].label", `duplicate label "yes"`},
		{"six words", AskRequest{Question: "q", Options: opts("one two three four five six", "B")}, "options[0].label", "must be 1–5 words, got 6"},
		{"recommended not first", AskRequest{Question: "q", Options: opts("A", "B (Recommended)")}, "options[1].label", `only the first option may be marked "(Recommended)"`},
		{"header of 17", AskRequest{Question: "q", Header: strings.Repeat("h", 17)}, "header", "at most 16 characters, got 17"},
		{"other false without options", AskRequest{Question: "q", Other: &no}, "other", "must stay true"},
		{"edit without free text", AskRequest{Question: "q", Options: []Option{{Label: "A", Edit: "make"}, {Label: "B"}}, Other: &no}, "options[0].edit", "needs free text"},
		{"edit too long", AskRequest{Question: "q", Options: []Option{{Label: "A", Edit: strings.Repeat("x", 4001)}, {Label: "B"}}}, "options[0].edit", "at most 4000 characters, got 4001"},
		{"edit with a control character", AskRequest{Question: "q", Options: []Option{{Label: "A", Edit: "make\x1b[2J"}, {Label: "B"}}}, "options[0].edit", "control"},
		{"an Other option", AskRequest{Question: "q", Options: opts("A", "Other")}, "options[1].label", "do not add an \"Other\" option"},
		{"timeout 1s", AskRequest{Question: "q", Timeout: dur(time.Second)}, "timeout", "must be between 10s and 7d, got 1s"},
		{"timeout 30d", AskRequest{Question: "q", Timeout: dur(30 * 24 * time.Hour)}, "timeout", "must be between 10s and 7d"},
		{"lease 1s", AskRequest{Question: "q", Lease: dur(time.Second)}, "lease", "must be between 5s and 7d"},
		{"reminder 1.0", AskRequest{Question: "q", Reminders: []float64{0.5, 1}}, "reminders[1]", "strictly between 0 and 1"},
		{"reminder 0", AskRequest{Question: "q", Reminders: []float64{0}}, "reminders[0]", "strictly between 0 and 1"},
		{"default not an option", AskRequest{Question: "q", Options: opts("A", "B"), Other: &no, Default: StringList{"C"}}, "default", `"C" is not one of the options`},
		{"multi default missing", AskRequest{Question: "q", MultiSelect: true, Options: opts("A", "B"), Default: StringList{"A", "Z"}}, "default", `"Z" is not one of the options`},
		{"two defaults single", AskRequest{Question: "q", Options: opts("A", "B"), Default: StringList{"A", "B"}}, "default", "takes one default, got 2"},
		{"bad action", AskRequest{Question: "q", Options: []Option{{Label: "A", Action: "explode"}, {Label: "B"}}}, "options[0].action", `must be "end_turn" or "new_session"`},
		{"label only numbers", AskRequest{Question: "q", Options: opts("1", "2")}, "options[0].label", "cannot be only numbers"},
		{"dialog prompt field named", AskRequest{Questions: prompt(func(p *Prompt) { p.Header = strings.Repeat("x", 20) })}, "questions[0].header", "at most 16"},
		{"dialog same question twice", AskRequest{Questions: []Prompt{{Question: "Same?"}, {Question: "Same?"}}}, "questions[1].question", "same text"},
		{"both forms", AskRequest{Question: "q", Questions: []Prompt{{Question: "r"}}}, "question", "not both"},
		{"callback not http", AskRequest{Question: "q", CallbackURL: "ftp://x/y"}, "callback_url", "must be an absolute http or https URL"},
		{"line break in session", AskRequest{Question: "q", SessionID: "a\nb"}, "session_id", "must be one line: contains a line break (U+000A) at character 2"},
		{"control char in session", AskRequest{Question: "q", SessionID: "a\x1bb"}, "session_id", "contains a control character (U+001B) at character 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := validateRequest(&tt.req)
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want a *FieldError", err)
			}
			if fe.Field != tt.field || !strings.Contains(fe.Message, tt.msg) {
				t.Fatalf("got %s: %s; want %s: …%s…", fe.Field, fe.Message, tt.field, tt.msg)
			}
		})
	}
}

func TestValidRequests(t *testing.T) {
	free := AskRequest{Question: "Anything to add? ✓ 日本語", Default: StringList{"nothing"}}
	if _, err := validateRequest(&free); err != nil {
		t.Fatalf("free text with a free-text default: %v", err)
	}
	rec := AskRequest{Question: "q", Options: []Option{{Label: "Postgres (Recommended)"}, {Label: "Five words make a label"}}, Default: StringList{"Postgres"}}
	if _, err := validateRequest(&rec); err != nil {
		t.Fatalf("recommended first, default without the mark: %v", err)
	}
}

func TestJSONForms(t *testing.T) {
	var r AskRequest
	if err := json.Unmarshal([]byte(`{"question":"q","default":"A","timeout":"90s","wait":30}`), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Default) != 1 || time.Duration(*r.Timeout) != 90*time.Second || time.Duration(*r.Wait) != 30*time.Second {
		t.Fatalf("decoded %+v", r)
	}
	if err := json.Unmarshal([]byte(`{"timeout":"soon"}`), &r); err == nil || !strings.Contains(err.Error(), `"soon" is not a duration`) {
		t.Fatalf("bad duration: %v", err)
	}
}

// One range for every timeout, wherever it is set.
func TestCheckTimeout(t *testing.T) {
	for _, d := range []time.Duration{MinTimeout, time.Hour, MaxTimeout} {
		if err := CheckTimeout(d); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
	for d, want := range map[time.Duration]string{
		MinTimeout - time.Millisecond: "must be between 10s and 7d, got 9.999s",
		MaxTimeout + time.Second:      "must be between 10s and 7d, got 168h0m1s",
		0:                             "must be between 10s and 7d, got 0s",
	} {
		if err := CheckTimeout(d); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", d, err, want)
		}
	}
}
