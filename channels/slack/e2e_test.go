package slack

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// brokerEnv is the real broker on a real SQLite file, with the Slack
// channel connected to the fake over Socket Mode.
type brokerEnv struct {
	*testEnv
	b  *broker.Broker
	st broker.Store
}

func newBrokerEnv(t *testing.T, route broker.Route) *brokerEnv {
	return newBrokerEnvMode(t, ModeSocket, route)
}

func newBrokerEnvMode(t *testing.T, mode string, route broker.Route) *brokerEnv {
	t.Helper()
	if len(route.Targets) == 0 {
		route.Targets = []broker.Target{{Channel: "slack", Chat: general}}
	}
	br := channeltest.NewBridge(t, map[string]broker.Route{"default": route}, channeltest.WithPeople(t,
		broker.Person{ID: "ana", Accounts: []string{"slack:" + ana.ID}},
		broker.Person{ID: "bob", Accounts: []string{"slack:" + bob.ID}}))
	env := newEnv(t, mode, br)
	br.Register(env.ch)
	env.run(t)
	return &brokerEnv{testEnv: env, b: br.Broker, st: br.Store}
}

// ask asks the sample question and returns it with its posted message.
func (e *brokerEnv) ask(t *testing.T, req *broker.AskRequest) (*broker.Question, slackfake.Message) {
	t.Helper()
	if req == nil {
		req = &broker.AskRequest{Question: "Which database?", Header: "DB", Default: broker.StringList{"SQLite"},
			Options: []broker.Option{{Label: "Postgres (Recommended)", Description: "reliable"}, {Label: "SQLite", Description: "embedded"}}}
	}
	q, _, err := e.b.Ask(context.Background(), "agent", req)
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	if q.Status != broker.StatusPending {
		t.Fatalf("question %s is %s: %s", q.ID, q.Status, q.Reason)
	}
	// The post may end after the ask returns (its grace ran out); the
	// test acts on the copy once the bridge has recorded it.
	for _, target := range q.Targets {
		channeltest.WaitCopy(t, e.st, q.ID, target)
	}
	waitFake(t, e.fake, "the question posted", func() bool {
		for _, m := range e.fake.Messages() {
			if strings.Contains(m.Text, q.ID) {
				return true
			}
		}
		return false
	})
	msgs := e.fake.Messages()
	return q, msgs[len(msgs)-1]
}

// wait blocks in b.Wait as an agent does, and returns the result channel.
func (e *brokerEnv) wait(id string) <-chan *broker.Question {
	out := make(chan *broker.Question, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		q, _ := e.b.Wait(ctx, "agent", id)
		out <- q
	}()
	return out
}

func (e *brokerEnv) button(t *testing.T, m slackfake.Message, text string) slackfake.Button {
	t.Helper()
	b, ok := m.Button(text)
	if !ok {
		t.Fatalf("message has no %q button: %+v", text, m.Buttons())
	}
	return b
}

// copyShows waits until the posted copy m was edited to show want and has
// no buttons left.
func (e *brokerEnv) copyShows(t *testing.T, m slackfake.Message, want string) slackfake.Message {
	t.Helper()
	var got slackfake.Message
	waitFake(t, e.fake, "the copy to show "+want, func() bool {
		got, _ = e.fake.Message(m.Channel, m.TS)
		return got.Updates > 0 && strings.Contains(got.Text, want)
	})
	if b := got.Buttons(); len(b) != 0 {
		t.Errorf("resolved copy still has buttons: %+v", b)
	}
	if !strings.Contains(strings.Join(textObjects(t, got.Blocks, "mrkdwn"), "\n"), want) {
		t.Errorf("resolved copy's blocks do not show %q", want)
	}
	return got
}

func TestEndToEndAnswerPaths(t *testing.T) {
	tests := []struct {
		name     string
		multi    bool
		act      func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message)
		status   broker.Status
		selected string
		custom   string
		skipped  bool
		outcome  string
	}{
		{name: "button", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "SQLite")))
		}, status: broker.StatusAnswered, selected: "SQLite", outcome: "Answered by ana at"},
		{name: "slash command", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "slash_commands", slackfake.SlashPayload(slackfake.SlashCommand(ana, general, "general", "/answer", q.ID+" 2")))
		}, status: broker.StatusAnswered, selected: "SQLite", outcome: "Answered by ana at"},
		{name: "bare number in the thread", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "events_api", slackfake.MessageEvent(slackfake.MessageOpts{User: bob, Channel: general, Text: "2", ThreadTS: m.TS}))
		}, status: broker.StatusAnswered, selected: "SQLite", outcome: "Answered by bob at"},
		{name: "label typed in the thread", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "events_api", slackfake.MessageEvent(slackfake.MessageOpts{User: bob, Channel: general, Text: "sqlite", ThreadTS: m.TS}))
		}, status: broker.StatusAnswered, selected: "SQLite", outcome: "Answered by bob at"},
		{name: "answer typed in the thread", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "events_api", slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: "!answer " + q.ID + " 1", ThreadTS: m.TS}))
		}, status: broker.StatusAnswered, selected: "Postgres (Recommended)", outcome: "Answered by ana at"},
		{name: "multi-select submit", multi: true, act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			p, err := slackfake.SubmitCheckboxes(m, ana, e.button(t, m, "Submit"), 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			e.send(t, "interactive", p)
		}, status: broker.StatusAnswered, selected: "Postgres (Recommended),SQLite", outcome: "Answered by ana at"},
		{name: "other through the modal", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "Other or note…")))
			waitFake(t, e.fake, "the modal", func() bool { return len(e.fake.Views()) == 1 })
			p, err := slackfake.SubmitView(e.fake.Views()[0], ana, "MySQL <we run it>")
			if err != nil {
				t.Fatal(err)
			}
			e.send(t, "interactive", p)
		}, status: broker.StatusAnswered, custom: "MySQL <we run it>", outcome: "Answered by ana at"},
		{name: "option and a note through the modal", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "Other or note…")))
			waitFake(t, e.fake, "the modal", func() bool { return len(e.fake.Views()) == 1 })
			if got := modalChoices(t, e.fake.Views()[0]); got != "radio_buttons: Postgres (Recommended), SQLite; ticked: " {
				t.Errorf("the modal offers %q", got)
			}
			p, err := slackfake.SubmitViewChoosing(e.fake.Views()[0], ana, "with WAL <on>", 1)
			if err != nil {
				t.Fatal(err)
			}
			e.send(t, "interactive", p)
		}, status: broker.StatusAnswered, selected: "SQLite", custom: "with WAL <on>", outcome: "SQLite (note: “with WAL &lt;on&gt;”)"},
		{name: "ticked options and a note through the modal", multi: true, act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			// Ticked in the message, then "Other or note…": the modal
			// starts with the same ticks.
			p, err := slackfake.SubmitCheckboxes(m, ana, e.button(t, m, "Other or note…"), 1)
			if err != nil {
				t.Fatal(err)
			}
			e.send(t, "interactive", p)
			waitFake(t, e.fake, "the modal", func() bool { return len(e.fake.Views()) == 1 })
			if got := modalChoices(t, e.fake.Views()[0]); got != "checkboxes: Postgres (Recommended), SQLite; ticked: 1" {
				t.Errorf("the modal offers %q", got)
			}
			p, err = slackfake.SubmitViewChoosing(e.fake.Views()[0], ana, "and tags", 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			e.send(t, "interactive", p)
		}, status: broker.StatusAnswered, selected: "Postgres (Recommended),SQLite", custom: "and tags", outcome: "Answered by ana at"},
		{name: "skip a single question", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "Skip")))
		}, status: broker.StatusAnswered, skipped: true, outcome: "Skipped by ana at"},
		{name: "not ready button", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "interactive", slackfake.ClickButton(m, bob, e.button(t, m, "Not ready")))
		}, status: broker.StatusDeclined, outcome: "Not ready to answer; wants to discuss"},
		{name: "decline", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "interactive", slackfake.ClickButton(m, bob, e.button(t, m, "Decline")))
		}, status: broker.StatusDeclined, outcome: "Declined by bob at"},
		{name: "skip command", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "slash_commands", slackfake.SlashPayload(slackfake.SlashCommand(ana, general, "general", "/answer", q.ID+" skip")))
		}, status: broker.StatusAnswered, skipped: true, outcome: "Skipped by ana at"},
		{name: "discuss command", act: func(t *testing.T, e *brokerEnv, q *broker.Question, m slackfake.Message) {
			e.send(t, "slash_commands", slackfake.SlashPayload(slackfake.SlashCommand(bob, general, "general", "/discuss", q.ID+" what about load?")))
		}, status: broker.StatusDeclined, outcome: "wants to discuss"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newBrokerEnv(t, broker.Route{})
			req := &broker.AskRequest{Question: "Which database?", Header: "DB", MultiSelect: tt.multi,
				Options: []broker.Option{{Label: "Postgres (Recommended)"}, {Label: "SQLite"}}}
			q, m := e.ask(t, req)
			result := e.wait(q.ID)
			tt.act(t, e, q, m)
			var got *broker.Question
			select {
			case got = <-result:
			case <-time.After(10 * time.Second):
				t.Fatal("b.Wait did not return")
			}
			if got.Status != tt.status {
				t.Fatalf("status = %s (%s), want %s", got.Status, got.Reason, tt.status)
			}
			if tt.status == broker.StatusAnswered {
				a := got.Answers["Which database?"]
				if strings.Join(a.Selected, ",") != tt.selected || a.CustomText != tt.custom || a.Skipped != tt.skipped {
					t.Errorf("answer = %+v, want selected %q custom %q skipped %v", a, tt.selected, tt.custom, tt.skipped)
				}
			}
			if got.NotReady != strings.Contains(tt.outcome, "discuss") {
				t.Errorf("not_ready = %v", got.NotReady)
			}
			e.copyShows(t, m, tt.outcome)
			waitEphemeral(t, e.fake, "", "Recorded: ")
		})
	}
}

// modalChoices describes the radio buttons or checkboxes of a modal:
// "checkboxes: A, B; ticked: 1".
func modalChoices(t *testing.T, v slackfake.OpenedView) string {
	t.Helper()
	var view struct {
		Blocks []struct {
			Type    string `json:"type"`
			Element struct {
				Type    string `json:"type"`
				Options []struct {
					Text  struct{ Text string } `json:"text"`
					Value string                `json:"value"`
				} `json:"options"`
				Initial []struct {
					Value string `json:"value"`
				} `json:"initial_options"`
			} `json:"element"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(v.View, &view); err != nil {
		t.Fatal(err)
	}
	for _, b := range view.Blocks {
		if b.Type != "input" || (b.Element.Type != "radio_buttons" && b.Element.Type != "checkboxes") {
			continue
		}
		var labels, ticked []string
		for _, o := range b.Element.Options {
			labels = append(labels, o.Text.Text)
		}
		for _, o := range b.Element.Initial {
			ticked = append(ticked, o.Value)
		}
		return b.Element.Type + ": " + strings.Join(labels, ", ") + "; ticked: " + strings.Join(ticked, ",")
	}
	return "no choices"
}

// TestEndToEndEmptyModal: a modal sent with nothing chosen and nothing
// typed records nothing and says so.
func TestEndToEndEmptyModal(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{})
	q, m := e.ask(t, nil)
	e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "Other or note…")))
	waitFake(t, e.fake, "the modal", func() bool { return len(e.fake.Views()) == 1 })
	p, err := slackfake.SubmitViewChoosing(e.fake.Views()[0], ana, "")
	if err != nil {
		t.Fatal(err)
	}
	e.send(t, "interactive", p)
	waitEphemeral(t, e.fake, ana.ID, "Choose an option or type an answer: nothing was recorded.")
	e.ch.drain()
	if got, _ := e.b.Get(context.Background(), "agent", q.ID); got.Status != broker.StatusPending {
		t.Fatalf("an empty modal changed the question to %s", got.Status)
	}
}

// TestEndToEndDialogTimeout checks the copy of a dialog that timed out
// after a person answered one prompt: the answer stays, with who gave it,
// and the other prompt took its default.
func TestEndToEndDialogTimeout(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{})
	q, m := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Header: "DB", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}, Default: broker.StringList{"sqlite"}},
		{Question: "Which cache?", Header: "Cache", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}})
	if !strings.Contains(m.Text, "default: DB: SQLite") {
		t.Errorf("the copy does not name the database's default:\n%s", m.Text)
	}
	result := e.wait(q.ID)
	e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "Redis")))
	var stored *broker.Question
	waitFake(t, e.fake, "the cache answer to be saved", func() bool {
		stored, _ = e.st.Get(context.Background(), q.ID)
		return stored != nil && stored.Given(1) != nil
	})
	if _, err := e.b.Expire(context.Background(), stored, stored.ExpiresAt); err != nil {
		t.Fatal(err)
	}
	var got *broker.Question
	select {
	case got = <-result:
	case <-time.After(10 * time.Second):
		t.Fatal("b.Wait did not return")
	}
	if c := got.Answers["Which cache?"]; got.Status != broker.StatusTimedOut || c.AnsweredBy == nil || c.AnsweredBy.User != ana.ID || !got.Answers["Which database?"].Defaulted {
		t.Errorf("result %s %+v", got.Status, got.Answers)
	}
	e.copyShows(t, m, "with 1 of 2 answered: DB: SQLite (default); Cache: Redis (by ana)")
}

func TestEndToEndAfterResolution(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{})
	q, m := e.ask(t, nil)

	t.Run("reminder in the thread", func(t *testing.T) {
		if err := e.b.Remind(context.Background(), q.ID); err != nil {
			t.Fatal(err)
		}
		msgs := e.fake.Messages()
		last := msgs[len(msgs)-1]
		if last.ThreadTS != m.TS || !strings.Contains(last.Text, "Reminder: this question is still open") {
			t.Errorf("reminder = %+v, want a reply in thread %s", last, m.TS)
		}
	})
	t.Run("timeout edits the copy", func(t *testing.T) {
		if _, err := e.b.Resolve(context.Background(), q.ID, broker.TimedOut(q, time.Now())); err != nil {
			t.Fatal(err)
		}
		e.copyShows(t, m, "No answer in 30 min: used the default, SQLite")
	})
}

func TestEndToEndRefusals(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{
		Targets:    []broker.Target{{Channel: "slack", Chat: general}},
		Responders: []string{"slack:" + ana.ID},
	})
	q, m := e.ask(t, nil)
	tests := []struct {
		name string
		user slackfake.User
		typ  string
		pay  func() any
		want string
	}{
		{"answer from another channel", ana, "slash_commands", func() any {
			return slackfake.SlashPayload(slackfake.SlashCommand(ana, random, "random", "/answer", q.ID+" 2"))
		}, "There is no question " + q.ID + " here."},
		{"responder not allowed", bob, "interactive", func() any {
			return slackfake.ClickButton(m, bob, e.button(t, m, "SQLite"))
		}, "You are not one of the people asked to answer " + q.ID},
		{"choice out of range", ana, "slash_commands", func() any {
			return slackfake.SlashPayload(slackfake.SlashCommand(ana, general, "general", "/answer", q.ID+" 7"))
		}, "7 is not an option here: choose 1–2"},
		{"unknown id", ana, "slash_commands", func() any {
			return slackfake.SlashPayload(slackfake.SlashCommand(ana, general, "general", "/answer", "zzzzzz 1"))
		}, "There is no question zzzzzz here."},
		{"malformed command", ana, "slash_commands", func() any {
			return slackfake.SlashPayload(slackfake.SlashCommand(ana, general, "general", "/answer", ""))
		}, "needs a question id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.send(t, tt.typ, tt.pay())
			waitEphemeral(t, e.fake, tt.user.ID, escapeMrkdwn(tt.want))
			e.ch.drain()
			got, err := e.b.Get(context.Background(), "agent", q.ID)
			if err != nil || got.Status != broker.StatusPending {
				t.Fatalf("question after a refused action: %v %v", got.Status, err)
			}
			if cur, _ := e.fake.Message(m.Channel, m.TS); cur.Updates != 0 {
				t.Errorf("the copy was edited")
			}
		})
	}
}

func TestEndToEndDialogProgress(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{})
	q, m := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Header: "DB", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which cache?", Header: "Cache", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}})
	result := e.wait(q.ID)
	e.send(t, "interactive", slackfake.ClickButton(m, ana, e.button(t, m, "SQLite")))
	waitFake(t, e.fake, "the progress edit", func() bool {
		cur, _ := e.fake.Message(m.Channel, m.TS)
		return cur.Updates > 0
	})
	cur, _ := e.fake.Message(m.Channel, m.TS)
	if _, ok := cur.Button("SQLite"); ok {
		t.Errorf("the answered prompt still has buttons")
	}
	if !strings.Contains(strings.Join(textObjects(t, cur.Blocks, "mrkdwn"), "\n"), "Answered: SQLite") {
		t.Errorf("progress not shown")
	}
	e.send(t, "interactive", slackfake.ClickButton(cur, ana, e.button(t, cur, "Skip")))
	got := <-result
	if got.Status != broker.StatusAnswered || !got.Answers["Which cache?"].Skipped || got.Answers["Which database?"].Selected[0] != "SQLite" {
		t.Errorf("dialog result = %s %+v", got.Status, got.Answers)
	}
	e.copyShows(t, m, "DB: SQLite; Cache: skipped")
}

func TestEndToEndPostFailures(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{})
	t.Run("channel not found", func(t *testing.T) {
		e.fake.FailChannel(general, "channel_not_found")
		defer e.fake.FailChannel(general, "")
		q, _, err := e.b.Ask(context.Background(), "agent", &broker.AskRequest{Question: "Deploy?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}})
		if err != nil {
			t.Fatal(err)
		}
		if q.Status != broker.StatusUnsupported || !strings.Contains(q.Reason, "channel_not_found") {
			t.Errorf("question = %s (%s), want unsupported naming channel_not_found", q.Status, q.Reason)
		}
	})
	t.Run("agent markup is inert", func(t *testing.T) {
		_, m := e.ask(t, &broker.AskRequest{Question: "<!here> *urgent* deploy to <http://x|prod>?", Context: "<!channel> <@U0BOB0001>",
			Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}})
		for _, s := range append(textObjects(t, m.Blocks, "mrkdwn"), m.Text) {
			if strings.Contains(s, "<!") || strings.Contains(s, "<@") || strings.Contains(s, "<http") {
				t.Errorf("live markup reached Slack: %q", s)
			}
		}
	})
}
