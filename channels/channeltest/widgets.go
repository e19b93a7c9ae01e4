package channeltest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// widgetData: every widget of a posted dialog, at each of its prompts,
// sends a step of that question that answers with the options chosen:
// the data it carries itself (Discord's select menu) or that of the
// button sending what was chosen in it (Slack's Submit beside the
// checkboxes), within the platform's limits; each of its options names
// an option of that step's prompt, the one its label shows. Choosing two
// options of the multi-select prompt through its widget (or, on a
// platform without one, Telegram, through its toggles and Submit)
// records exactly those two.
func widgetData(t *testing.T, s *session) {
	q := s.Ask(dialogQuestion("snooze"))
	chat := s.chats[0]
	m := s.posted(t, chat, q)
	steps := s.checkSteps(t, q, m)
	s.checkWidgets(t, q, m)
	option := find(t, m, steps, func(st broker.Step) bool {
		return st.Kind == broker.StepOption && st.Ref.Index == 0 && slices.Equal(st.Options, []int{1})
	})
	if _, err := s.p.Tap(chat, m, option); err != nil {
		t.Fatalf("tap %q: %v", option.Label, err)
	}

	// The copy moves on to the multi-select prompt.
	Eventually(t, "the copy "+m.ID+" showing prompt 2's controls and no longer prompt 1's", func() bool {
		m, _ = s.message(chat, m.ID)
		return offers(m, 1) && !offers(m, 0)
	})
	s.checkSteps(t, q, m)
	s.checkWidgets(t, q, m)
	regions := []int{0, 2}
	if w, ok := widgetOf(m, 1); ok {
		positions := make([]int, len(regions))
		for i, k := range regions {
			positions[i] = slices.IndexFunc(w.Options, func(c Choice) bool { return c.Value == strconv.Itoa(k) })
			if positions[i] < 0 {
				t.Fatalf("the %s of prompt 2 has no option %d: %+v", w.Kind, k+1, w.Options)
			}
		}
		if _, err := s.p.Choose(chat, m, w, positions...); err != nil {
			t.Fatalf("choose options %v in the %s: %v", regions, w.Kind, err)
		}
	} else {
		s.toggleAndSubmit(t, chat, m, 1, regions)
	}

	var got *broker.Question
	Eventually(t, "question "+q.ID+" answered", func() bool {
		got = s.Question(q.ID)
		return got.Status != broker.StatusPending
	})
	db, picked := got.Answers[q.Prompts[0].Question], got.Answers[q.Prompts[1].Question]
	if got.Status != broker.StatusAnswered || !slices.Equal(db.Selected, []string{"SQLite"}) ||
		!slices.Equal(picked.Selected, []string{"Europe", "Asia"}) || picked.Skipped || picked.CustomText != "" {
		t.Errorf("the dialog ended %s with %v, then %v (skipped %v, text %q), want SQLite, then exactly Europe and Asia",
			got.Status, db.Selected, picked.Selected, picked.Skipped, picked.CustomText)
	}
}

// offers reports whether m has a button or widget acting on prompt i,
// leaving out those acting on the whole question (which name its first
// prompt).
func offers(m Message, i int) bool {
	for _, b := range m.Buttons {
		st, err := broker.DecodeStep(b.Data)
		if err != nil || st.Kind == broker.StepSnooze || st.Kind == broker.StepDecline || st.Kind == broker.StepNotReady {
			continue
		}
		if st.Ref.Index == i {
			return true
		}
	}
	_, ok := widgetOf(m, i)
	return ok
}

// toggleAndSubmit ticks options of prompt i with its toggle buttons,
// each once the copy shows the ticks before it, and presses Submit once
// it carries them all.
func (s *session) toggleAndSubmit(t *testing.T, chat string, m Message, i int, options []int) {
	t.Helper()
	stepButton := func(m Message, wanted func(broker.Step) bool) (Button, bool) {
		for _, b := range m.Buttons {
			if st, err := broker.DecodeStep(b.Data); err == nil && st.Ref.Index == i && wanted(st) {
				return b, true
			}
		}
		return Button{}, false
	}
	for n, k := range options {
		toggle, ok := stepButton(m, func(st broker.Step) bool {
			return st.Kind == broker.StepToggle && slices.Equal(st.Options, []int{k})
		})
		if !ok {
			t.Fatalf("the copy %s has neither a widget nor a toggle for option %d of prompt %d; it has %+v", m.ID, k+1, i+1, m.Buttons)
		}
		if _, err := s.p.Tap(chat, m, toggle); err != nil {
			t.Fatalf("tap %q: %v", toggle.Label, err)
		}
		ticked := options[:n+1]
		Eventually(t, fmt.Sprintf("the copy %s offering to submit options %v", m.ID, ticked), func() bool {
			m, _ = s.message(chat, m.ID)
			_, ok := stepButton(m, func(st broker.Step) bool { return st.Kind == broker.StepSubmit && slices.Equal(st.Options, ticked) })
			return ok
		})
	}
	submit, _ := stepButton(m, func(st broker.Step) bool { return st.Kind == broker.StepSubmit })
	if _, err := s.p.Tap(chat, m, submit); err != nil {
		t.Fatalf("tap %q: %v", submit.Label, err)
	}
}

// checkWidgets fails the test for each problem widgetProblems finds in
// m, a copy of q.
func (s *session) checkWidgets(t *testing.T, q *broker.Question, m Message) {
	t.Helper()
	for _, p := range widgetProblems(q, m, s.p.Limits()) {
		t.Error(p)
	}
}

// widgetStep returns the step data that choosing in w sends: its own,
// or that of the button sending it.
func widgetStep(w Widget) string {
	if w.Data == "" && w.Submit != nil {
		return w.Submit.Data
	}
	return w.Data
}

// widgetOf returns m's widget that acts on prompt i.
func widgetOf(m Message, i int) (Widget, bool) {
	for _, w := range m.Widgets {
		if st, err := broker.DecodeStep(widgetStep(w)); err == nil && st.Ref.Index == i {
			return w, true
		}
	}
	return Widget{}, false
}

// widgetProblems lists what is wrong with the widgets of m, a copy of q,
// on a platform with limits lim: a widget whose choice sends no step, or
// data that does not decode as a step of q answering with the options
// chosen, or more than the platform allows; an option whose value names
// no option of that step's prompt, or another than its label shows.
// Option values are 0-based option indexes, read against the widget's
// step: that is how the channels read them.
func widgetProblems(q *broker.Question, m Message, lim Limits) []string {
	var out []string
	bad := func(w Widget, format string, args ...any) {
		out = append(out, fmt.Sprintf("the %s %q of %s ", w.Kind, w.ID, m.ID)+fmt.Sprintf(format, args...))
	}
	for _, w := range m.Widgets {
		if lim.ID > 0 && len(w.ID) > lim.ID {
			bad(w, "has an id of %d bytes, more than the platform's %d", len(w.ID), lim.ID)
		}
		data := widgetStep(w)
		if data == "" {
			bad(w, "carries no step, and no button sends what is chosen in it")
			continue
		}
		if len(data) > lim.Data {
			bad(w, "sends %d bytes of step data, more than the platform's %d", len(data), lim.Data)
		}
		st, err := broker.DecodeStep(data)
		switch {
		case err != nil:
			bad(w, "sends %q: %v", data, err)
			continue
		case st.Legacy != "":
			bad(w, "sends the command %q, not a step", data)
			continue
		case st.Ref.ID != q.ID || st.Ref.Count != len(q.Prompts) || st.Ref.Index < 0 || st.Ref.Index >= len(q.Prompts):
			bad(w, "sends a step of %+v, want one of the %d prompts of %s", st.Ref, len(q.Prompts), q.ID)
			continue
		case w.Data != "" && st.Kind != broker.StepPick && st.Kind != broker.StepWithNote,
			w.Data == "" && st.Kind != broker.StepSubmit:
			bad(w, "sends a %q step, which does not answer with the options chosen", rune(st.Kind))
		}
		opts := q.Prompts[st.Ref.Index].Options
		if len(w.Options) == 0 {
			bad(w, "offers no options")
		}
		seen := map[int]bool{}
		for _, c := range w.Options {
			if lim.OptionValue > 0 && len(c.Value) > lim.OptionValue {
				bad(w, "has the option %q whose value is %d bytes, more than the platform's %d", c.Label, len(c.Value), lim.OptionValue)
			}
			k, err := strconv.Atoi(c.Value)
			switch {
			case err != nil || k < 0 || k >= len(opts) || c.Value != strconv.Itoa(k):
				bad(w, "has the option %q whose value %q names no option of prompt %d", c.Label, c.Value, st.Ref.Index+1)
			case !strings.Contains(c.Label, opts[k].Label):
				bad(w, "has the option %q whose value names option %d, %q", c.Label, k+1, opts[k].Label)
			case seen[k]:
				bad(w, "offers option %d twice", k+1)
			}
			if err == nil && k >= 0 && k < len(opts) {
				seen[k] = true
			}
		}
		if len(w.Options) > 0 && len(seen) < len(opts) {
			bad(w, "leaves out %d of the %d options of prompt %d", len(opts)-len(seen), len(opts), st.Ref.Index+1)
		}
	}
	return out
}
