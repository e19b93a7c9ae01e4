package broker_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

func TestStepRoundTrip(t *testing.T) {
	one := broker.PromptRef{ID: "k7m2qx", Index: 0, Count: 1}
	third := broker.PromptRef{ID: "k7m2qx", Index: 2, Count: 4}
	cases := []struct {
		step    broker.Step
		data    string
		text    string
		command string
	}{
		{broker.Step{Kind: broker.StepOption, Ref: one, Options: []int{1}}, "1o:k7m2qx.1/1:2", "", "/answer k7m2qx 2"},
		{broker.Step{Kind: broker.StepOption, Ref: third, Options: []int{0}}, "1o:k7m2qx.3/4:1", "", "/answer k7m2qx.3 1"},
		{broker.Step{Kind: broker.StepToggle, Ref: third, Options: []int{3}}, "1t:k7m2qx.3/4:4", "", "/toggle k7m2qx.3 4"},
		{broker.Step{Kind: broker.StepSubmit, Ref: one, Options: []int{2, 0}}, "1d:k7m2qx.1/1:31", "", "/answer k7m2qx 1,3"},
		{broker.Step{Kind: broker.StepSubmit, Ref: one, Options: []int{0, 3}}, "1d:k7m2qx.1/1:14", "and tags", "/answer k7m2qx 1,4 other and tags"},
		{broker.Step{Kind: broker.StepPick, Ref: third}, "1p:k7m2qx.3/4", "", ""},
		{broker.Step{Kind: broker.StepOther, Ref: one}, "1x:k7m2qx.1/1", "my words", "/answer k7m2qx other my words"},
		{broker.Step{Kind: broker.StepWithNote, Ref: one, Options: []int{1}}, "1a:k7m2qx.1/1:2", "a note", "/answer k7m2qx 2 other a note"},
		{broker.Step{Kind: broker.StepNote, Ref: one}, "1n:k7m2qx.1/1", "", ""},
		{broker.Step{Kind: broker.StepDropNote, Ref: one}, "1r:k7m2qx.1/1", "", ""},
		{broker.Step{Kind: broker.StepSkip, Ref: third}, "1s:k7m2qx.3/4", "", "/answer k7m2qx.3 skip"},
		{broker.Step{Kind: broker.StepNotReady, Ref: one}, "1w:k7m2qx.1/1", "why now?", "/discuss k7m2qx why now?"},
		{broker.Step{Kind: broker.StepDecline, Ref: one}, "1c:k7m2qx.1/1", "", "/decline k7m2qx"},
		{broker.Step{Kind: broker.StepSnooze, Ref: one}, "1z:k7m2qx.1/1", "", "/snooze k7m2qx"},
	}
	for _, c := range cases {
		data := broker.EncodeStep(c.step)
		if data != c.data {
			t.Errorf("EncodeStep(%+v) = %q, want %q", c.step, data, c.data)
		}
		if len(data) > broker.MaxStepData {
			t.Errorf("%q is longer than MaxStepData (%d)", data, broker.MaxStepData)
		}
		got, err := broker.DecodeStep(data)
		if err != nil || got.Kind != c.step.Kind || got.Ref != c.step.Ref || !slices.Equal(got.Options, c.step.Options) {
			t.Errorf("DecodeStep(%q) = %+v, %v; want %+v", data, got, err, c.step)
			continue
		}
		cmd, ok := got.Command(c.text)
		if cmd != c.command || ok != (c.command != "") {
			t.Errorf("%q.Command(%q) = %q, %v; want %q", data, c.text, cmd, ok, c.command)
		}
		if ok {
			if _, err := broker.Parse(cmd); err != nil {
				t.Errorf("%q sends %q, which the grammar refuses: %v", data, cmd, err)
			}
		}
	}
}

// TestStepLongest checks that the longest step fits Telegram's 64 bytes
// of callback data, the smallest limit of the three platforms.
func TestStepLongest(t *testing.T) {
	s := broker.Step{Kind: broker.StepSubmit, Ref: broker.PromptRef{ID: "k7m2qx", Index: broker.MaxPrompts - 1, Count: broker.MaxPrompts}}
	for k := range broker.MaxOptions {
		s.Options = append(s.Options, k)
	}
	if d := broker.EncodeStep(s); len(d) != broker.MaxStepData || len(d) > 64 {
		t.Fatalf("the longest step %q is %d bytes; MaxStepData is %d", d, len(d), broker.MaxStepData)
	}
}

// TestStepLegacyCommand reads the buttons posted before steps: their data
// was the command itself, on all three platforms.
func TestStepLegacyCommand(t *testing.T) {
	for _, data := range []string{"/answer k7m2qx 2", "/answer k7m2qx.2 1,3", "/toggle k7m2qx.2 3", "/answer k7m2qx skip", "/decline k7m2qx", "/discuss k7m2qx", "/snooze k7m2qx"} {
		s, err := broker.DecodeStep(data)
		if err != nil || s.Legacy != data {
			t.Errorf("DecodeStep(%q) = %+v, %v", data, s, err)
			continue
		}
		if cmd, ok := s.Command("ignored"); !ok || cmd != data {
			t.Errorf("the old button %q now sends %q", data, cmd)
		}
	}
}

func TestStepBadData(t *testing.T) {
	cases := []struct{ data, want string }{
		{"", "not a button step"},
		{"o:k7m2qx:1", "not a button step"},
		{"2o:k7m2qx.1/1:2", "not a button step"},
		{"hello", "not a button step"},
		{"/nonsense k7m2qx", "not a button step"},
		{"1q:k7m2qx.1/1", `no step is written "q"`},
		{"1o:k7m2qx", "has no prompt count"},
		{"1o:k7m2q.1/1:1", "is not a question id"},
		{"1o:k7m2qx.3/2:1", "names prompt 3 of a question with 2"},
		{"1o:k7m2qx.1/9:1", "the prompt count after the slash must be 1–4"},
		{"1o:k7m2qx.1/1:5", "options are the digits 1–4"},
		{"1o:k7m2qx.1/1:0", "options are the digits 1–4"},
		{"1o:k7m2qx.1/1:x", "options are the digits 1–4"},
		{"1o:k7m2qx.1/1:12341", "carries 5 options"},
		{"1o:k7m2qx.1/1", "names no option"},
		{"1t:k7m2qx.1/1:12", "ticks more than one option"},
		{"/answer k7m2qx", "button data \"/answer k7m2qx\""},
	}
	for _, c := range cases {
		s, err := broker.DecodeStep(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, broker.ErrInvalid) {
			t.Errorf("DecodeStep(%q) = %+v, %v; want an error saying %q", c.data, s, err, c.want)
		}
	}
}

// FuzzDecodeStep holds DecodeStep to its contract on any data: it never
// panics; what it accepts re-encodes to the same data and names a valid
// prompt; and the command a step sends is one the grammar reads.
func FuzzDecodeStep(f *testing.F) {
	for _, s := range []string{"1o:k7m2qx.1/1:2", "1d:k7m2qx.3/4:1234", "1c:k7m2qx.1/1", "/answer k7m2qx 2", "1t:k7m2qx.2/2:9", ""} {
		f.Add(s, "note")
	}
	f.Fuzz(func(t *testing.T, data, text string) {
		s, err := broker.DecodeStep(data)
		if err != nil {
			return
		}
		if s.Legacy != "" {
			if s.Legacy != data {
				t.Fatalf("legacy %q from %q", s.Legacy, data)
			}
			return
		}
		if !s.Ref.Valid() {
			t.Fatalf("%q decodes to an invalid reference %+v", data, s.Ref)
		}
		if got := broker.EncodeStep(s); got != data && strings.ToLower(data) != got {
			t.Fatalf("%q re-encodes as %q", data, got)
		}
		if len(data) > broker.MaxStepData {
			t.Fatalf("%q is accepted but longer than MaxStepData", data)
		}
		if cmd, ok := s.Command(strings.ReplaceAll(text, "\n", " ")); ok && strings.TrimSpace(text) == "" {
			if _, err := broker.Parse(cmd); err != nil {
				t.Fatalf("%q sends %q, which the grammar refuses: %v", data, cmd, err)
			}
		}
	})
}
