package slack

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// TestOldButtonsStillAnswer taps, through the fake, the buttons and the
// modal of the previous release, whose data was not a broker.Step: each
// old format once, on a question posted now (the blocks are laid out as
// they were), and checks that the answer is recorded.
func TestOldButtonsStillAnswer(t *testing.T) {
	// oldRef is the JSON the previous release's Submit and "Other or
	// note…" buttons carried, and (with "c") its Other modal.
	oldRef := func(q *broker.Question, chat string) string {
		v := map[string]any{"id": q.ID, "p": 0, "n": 1, "q": "Which database?", "o": []string{"Postgres (Recommended)", "SQLite"}, "m": q.Prompts[0].MultiSelect}
		if chat != "" {
			v["c"] = chat
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// openModal taps "Other or note…" carrying value and returns the
	// modal that opens.
	openModal := func(t *testing.T, e *brokerEnv, m slackfake.Message, value string) slackfake.OpenedView {
		b := e.button(t, m, "Other or note…")
		if value != "" {
			b.Value = value
		}
		e.send(t, "interactive", slackfake.ClickButton(m, ana, b))
		waitFake(t, e.fake, "the modal", func() bool { return len(e.fake.Views()) == 1 })
		return e.fake.Views()[0]
	}
	tests := []struct {
		name     string
		multi    bool
		act      func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message)
		selected string
		custom   string
	}{
		{name: "an option button carrying its command", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			b := e.button(t, m, "SQLite")
			b.Value = "/answer " + q.ID + " 2"
			e.send(t, "interactive", slackfake.ClickButton(m, ana, b))
		}, selected: "SQLite"},
		{name: "Submit carrying a JSON reference", multi: true, act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			b := e.button(t, m, "Submit")
			b.Value = oldRef(q, "")
			p, err := slackfake.SubmitCheckboxes(m, ana, b, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			e.send(t, "interactive", p)
		}, selected: "Postgres (Recommended),SQLite"},
		{name: "Other or note… carrying a JSON reference", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			v := openModal(t, e, m, oldRef(q, ""))
			if got := modalChoices(t, v); got != "radio_buttons: Postgres (Recommended), SQLite; ticked: " {
				t.Errorf("the modal offers %q", got)
			}
			p, err := slackfake.SubmitViewChoosing(v, ana, "with WAL", 1)
			if err != nil {
				t.Fatal(err)
			}
			e.send(t, "interactive", p)
		}, selected: "SQLite", custom: "with WAL"},
		{name: "a modal opened before, its metadata a JSON reference", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			v := openModal(t, e, m, "")
			var view map[string]any
			if err := json.Unmarshal(v.View, &view); err != nil {
				t.Fatal(err)
			}
			view["private_metadata"] = oldRef(q, general)
			v.View = mustJSON(t, view)
			p, err := slackfake.SubmitView(v, ana, "MySQL")
			if err != nil {
				t.Fatal(err)
			}
			e.send(t, "interactive", p)
		}, custom: "MySQL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newBrokerEnv(t, broker.Route{})
			q, m := e.ask(t, &broker.AskRequest{Question: "Which database?", Header: "DB", MultiSelect: tt.multi,
				Options: []broker.Option{{Label: "Postgres (Recommended)"}, {Label: "SQLite"}}})
			result := e.wait(q.ID)
			tt.act(t, e, q, m)
			var got *broker.Question
			select {
			case got = <-result:
			case <-time.After(10 * time.Second):
				t.Fatal("the old button's answer was not recorded")
			}
			a := got.Answers["Which database?"]
			if got.Status != broker.StatusAnswered || strings.Join(a.Selected, ",") != tt.selected || a.CustomText != tt.custom {
				t.Errorf("%s with %+v, want answered with %q and %q", got.Status, a, tt.selected, tt.custom)
			}
		})
	}
}
