package channeltest

import (
	"slices"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

func dialogQuestion(route string) *broker.AskRequest {
	return &broker.AskRequest{Route: route, Questions: []broker.Prompt{
		{Question: "Which database should we use?", Header: "Database", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which regions?", Header: "Regions", MultiSelect: true,
			Options: []broker.Option{{Label: "Europe"}, {Label: "Americas"}, {Label: "Asia"}}},
	}}
}

// buttonData: every button of a posted dialog, at each of its prompts,
// carries a step of that question written by broker.EncodeStep, within
// the platform's limit; a button that picks or ticks an option names the
// option its label shows; tapping an option records exactly that option.
func buttonData(t *testing.T, s *session) {
	q := s.Ask(dialogQuestion("snooze"))
	m := s.posted(t, s.chats[0], q)
	steps := s.checkSteps(t, q, m)
	option := find(t, m, steps, func(st broker.Step) bool {
		return st.Kind == broker.StepOption && st.Ref.Index == 0 && slices.Equal(st.Options, []int{1})
	})
	if !strings.Contains(option.Label, "SQLite") {
		t.Fatalf("the button of option 2 of prompt 1 reads %q, want SQLite", option.Label)
	}
	if _, err := s.p.Tap(s.chats[0], m, option); err != nil {
		t.Fatalf("tap %q: %v", option.Label, err)
	}

	// The copy moves on to the multi-select prompt; skip it.
	var skip Button
	Eventually(t, "the copy "+m.ID+" offering to skip prompt 2", func() bool {
		m, _ = s.message(s.chats[0], m.ID)
		for _, b := range m.Buttons {
			if st, err := broker.DecodeStep(b.Data); err == nil && st.Kind == broker.StepSkip && st.Ref.Index == 1 {
				skip = b
				return true
			}
		}
		return false
	})
	s.checkSteps(t, q, m)
	if _, err := s.p.Tap(s.chats[0], m, skip); err != nil {
		t.Fatalf("tap %q: %v", skip.Label, err)
	}
	var got *broker.Question
	Eventually(t, "question "+q.ID+" answered", func() bool {
		got = s.Question(q.ID)
		return got.Status != broker.StatusPending
	})
	db, regions := got.Answers[q.Prompts[0].Question], got.Answers[q.Prompts[1].Question]
	if got.Status != broker.StatusAnswered || !slices.Equal(db.Selected, []string{"SQLite"}) || !regions.Skipped {
		t.Errorf("the dialog ended %s with %+v, want SQLite, then prompt 2 skipped", got.Status, got.Answers)
	}
}

// checkSteps checks the data of every button of m, a copy of q, and
// returns each button's step. It fails the test unless one of them is
// q's Snooze.
func (s *session) checkSteps(t *testing.T, q *broker.Question, m Message) []broker.Step {
	t.Helper()
	lim := s.p.Limits()
	var steps []broker.Step
	snooze := false
	for _, b := range m.Buttons {
		st, err := broker.DecodeStep(b.Data)
		switch {
		case err != nil:
			t.Errorf("button %q carries %q: %v", b.Label, b.Data, err)
		case st.Legacy != "":
			t.Errorf("button %q carries the command %q, not a step", b.Label, b.Data)
		case st.Ref.ID != q.ID || st.Ref.Count != len(q.Prompts) || st.Ref.Index < 0 || st.Ref.Index >= len(q.Prompts):
			t.Errorf("button %q carries a step of %+v, want one of the %d prompts of %s", b.Label, st.Ref, len(q.Prompts), q.ID)
		case len(b.Data) > lim.Data:
			t.Errorf("button %q carries %d bytes, more than the platform's %d", b.Label, len(b.Data), lim.Data)
		case lim.ID > 0 && len(b.ID) > lim.ID:
			t.Errorf("button %q has the id %q, longer than the platform's %d", b.Label, b.ID, lim.ID)
		}
		if err == nil && (st.Kind == broker.StepOption || st.Kind == broker.StepToggle) && st.Ref.Index >= 0 && st.Ref.Index < len(q.Prompts) {
			opts := q.Prompts[st.Ref.Index].Options
			if len(st.Options) != 1 || st.Options[0] >= len(opts) || !strings.Contains(b.Label, opts[st.Options[0]].Label) {
				t.Errorf("button %q carries options %v of prompt %d, want the one it shows", b.Label, st.Options, st.Ref.Index+1)
			}
		}
		snooze = snooze || err == nil && st.Kind == broker.StepSnooze && st.Ref.ID == q.ID
		steps = append(steps, st)
	}
	if !snooze {
		t.Errorf("the copy %s has no Snooze button; it has %+v", m.ID, m.Buttons)
	}
	return steps
}

// find returns the button of m whose step (steps, in m's order) is
// wanted.
func find(t *testing.T, m Message, steps []broker.Step, wanted func(broker.Step) bool) Button {
	t.Helper()
	for i, st := range steps {
		if wanted(st) {
			return m.Buttons[i]
		}
	}
	t.Fatalf("the copy %s has no such button; it has %+v", m.ID, m.Buttons)
	return Button{}
}
