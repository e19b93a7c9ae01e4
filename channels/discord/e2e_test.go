package discord

import (
	"crypto/ed25519"
	"encoding/hex"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

// TestEndToEnd answers blocking questions through every path a person
// has in Discord, with the real broker and a SQLite store.
func TestEndToEnd(t *testing.T) {
	w := newWorld(t, nil)

	t.Run("button", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		id := w.fake.Click(w.ana, a.msg, data(broker.StepOption, a.q.Ref(0), 1))
		q := a.done(t)
		if q.Status != broker.StatusAnswered || !slices.Equal(q.Answers[q.Prompts[0].Question].Selected, []string{"SQLite"}) {
			t.Errorf("result = %s %+v", q.Status, q.Answers)
		}
		if q.AnsweredBy == nil || q.AnsweredBy.User != w.ana.ID || q.AnsweredBy.Name != "ana" {
			t.Errorf("answered by %+v, want ana", q.AnsweredBy)
		}
		r, err := w.fake.WaitResponse(testCtx(t), id)
		if err != nil || r.Type != discordfake.ResponseUpdateMessage {
			t.Errorf("the tap was answered with %s (%v), want an update of the message", r.Raw, err)
		}
		w.edited(t, a.msg.ID, "Answered by ana at ")
	})

	t.Run("two people tap at once", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		ids := []string{
			w.fake.Click(w.ana, a.msg, data(broker.StepOption, a.q.Ref(0), 0)),
			w.fake.Click(w.bo, a.msg, data(broker.StepOption, a.q.Ref(0), 2)),
		}
		q := a.done(t)
		var won, lost int
		for _, id := range ids {
			r, err := w.fake.WaitResponse(testCtx(t), id)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case r.Type == discordfake.ResponseUpdateMessage:
				won++
			case r.Ephemeral() && strings.Contains(r.Content(), "Already answered by "+q.AnsweredBy.Name):
				lost++
			default:
				t.Errorf("unexpected response %s", r.Raw)
			}
		}
		if won != 1 || lost != 1 {
			t.Errorf("%d taps won and %d were told they lost; want exactly one of each", won, lost)
		}
		w.edited(t, a.msg.ID, "Answered by "+q.AnsweredBy.Name)
	})

	t.Run("select menu", func(t *testing.T) {
		req := dbRequest()
		req.MultiSelect = true
		a := w.ask(t, req)
		menus := a.msg.Menus()
		if len(menus) != 1 || menus[0].MaxValues != 3 {
			t.Fatalf("menus = %+v, want one with max_values 3", menus)
		}
		// The menu opens the note modal; the choice and the note are
		// recorded together when it is sent.
		id := w.fake.Choose(w.ana, a.msg, menus[0].CustomID, "0", "2")
		r, err := w.fake.WaitResponse(testCtx(t), id)
		if err != nil || r.Type != discordfake.ResponseModal {
			t.Fatalf("the menu answered %s (%v), want the note modal", r.Raw, err)
		}
		if w.status(t, a.q.ID) != broker.StatusPending {
			t.Errorf("choosing in the menu recorded before the note")
		}
		w.fake.SubmitModal(w.ana, a.msg, r.Data.CustomID, textInputID, "and the replicas")
		q := a.done(t)
		got := q.Answers[q.Prompts[0].Question]
		if !slices.Equal(got.Selected, []string{"Postgres (Recommended)", "MySQL"}) || got.CustomText != "and the replicas" {
			t.Errorf("answer = %+v, want two options and the note", got)
		}
		w.edited(t, a.msg.ID, "Answered by ana")
	})

	t.Run("select menu, note left empty", func(t *testing.T) {
		req := dbRequest()
		req.MultiSelect = true
		a := w.ask(t, req)
		id := w.fake.Choose(w.ana, a.msg, a.msg.Menus()[0].CustomID, "1")
		r, err := w.fake.WaitResponse(testCtx(t), id)
		if err != nil || r.Type != discordfake.ResponseModal {
			t.Fatalf("the menu answered %s (%v), want the note modal", r.Raw, err)
		}
		w.fake.SubmitModal(w.ana, a.msg, r.Data.CustomID, textInputID, "")
		q := a.done(t)
		if got := q.Answers[q.Prompts[0].Question]; !slices.Equal(got.Selected, []string{"SQLite"}) || got.CustomText != "" {
			t.Errorf("answer = %+v, want SQLite alone", got)
		}
	})

	t.Run("option and a note through the modal", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		id := w.fake.Click(w.ana, a.msg, data(broker.StepNote, a.q.Ref(0)))
		r, err := w.fake.WaitResponse(testCtx(t), id)
		if err != nil || r.Type != discordfake.ResponseModal {
			t.Fatalf("Other or note answered %s (%v), want a modal", r.Raw, err)
		}
		w.fake.SubmitModalFields(w.ana, a.msg, r.Data.CustomID, numbersInputID, "2", textInputID, "with WAL on")
		q := a.done(t)
		if got := q.Answers[q.Prompts[0].Question]; !slices.Equal(got.Selected, []string{"SQLite"}) || got.CustomText != "with WAL on" {
			t.Errorf("answer = %+v, want SQLite and the note", got)
		}
		w.edited(t, a.msg.ID, "SQLite \\(note: “with WAL on”\\)")
	})

	t.Run("modal refusals record nothing", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		for _, tc := range []struct{ numbers, text, reply string }{
			{"", "", "The answer was empty: nothing was recorded."},
			{"SQLite", "x", "“SQLite” is not an option number"},
			{"1,2", "both", "this question takes one answer"},
		} {
			id := w.fake.SubmitModalFields(w.ana, a.msg, data(broker.StepOther, a.q.Ref(0)), numbersInputID, tc.numbers, textInputID, tc.text)
			r, err := w.fake.WaitResponse(testCtx(t), id)
			if err != nil || !r.Ephemeral() || !strings.Contains(r.Content(), escape(tc.reply)) {
				t.Errorf("numbers %q text %q answered %s (%v), want an ephemeral %q", tc.numbers, tc.text, r.Raw, err, tc.reply)
			}
		}
		if w.status(t, a.q.ID) != broker.StatusPending || w.fake.Message(a.msg.ID).Edits != 0 {
			t.Errorf("a refused modal changed the question or its message")
		}
	})

	t.Run("skip a single question", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		w.fake.Click(w.ana, a.msg, data(broker.StepSkip, a.q.Ref(0)))
		q := a.done(t)
		if q.Status != broker.StatusAnswered || !q.Answers[q.Prompts[0].Question].Skipped {
			t.Errorf("result = %s %+v, want answered and skipped", q.Status, q.Answers)
		}
		w.edited(t, a.msg.ID, "Skipped by ana at ")
	})

	t.Run("not ready button", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		w.fake.Click(w.bo, a.msg, data(broker.StepNotReady, a.q.Ref(0)))
		q := a.done(t)
		if q.Status != broker.StatusDeclined || !q.NotReady || q.AnsweredBy.Name != "bo" {
			t.Errorf("result = %s not_ready=%v by %+v, want declined and not ready", q.Status, q.NotReady, q.AnsweredBy)
		}
		w.edited(t, a.msg.ID, "Not ready to answer; wants to discuss by bo at ")
	})

	t.Run("application command", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		id := w.fake.Command(w.ana, w.chat, "answer", "id", a.q.ID, "choice", "3")
		q := a.done(t)
		if got := q.Answers[q.Prompts[0].Question].Selected; !slices.Equal(got, []string{"MySQL"}) {
			t.Errorf("selected = %q", got)
		}
		r, _ := w.fake.WaitResponse(testCtx(t), id)
		if !r.Ephemeral() || r.Content() != "Recorded: MySQL" {
			t.Errorf("command answered %s", r.Raw)
		}
		w.edited(t, a.msg.ID, "Answered by ana")
	})

	t.Run("reply", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		said := w.fake.Say(w.ana, w.chat, "postgres (recommended)", a.msg.ID)
		q := a.done(t)
		if got := q.Answers[q.Prompts[0].Question].Selected; !slices.Equal(got, []string{"Postgres (Recommended)"}) {
			t.Errorf("selected = %q", got)
		}
		err := discordfake.Until(testCtx(t), func() bool {
			for _, m := range w.fake.Messages(w.chat) {
				if m.Author.Bot && m.Reference != nil && m.Reference.MessageID == said {
					return strings.HasPrefix(m.Content, "Recorded: Postgres")
				}
			}
			return false
		})
		if err != nil {
			t.Errorf("the reply was not answered with what was recorded")
		}
	})

	t.Run("other through the modal", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		other := data(broker.StepNote, a.q.Ref(0))
		if !slices.Contains(a.msg.CustomIDs(), other) {
			t.Fatalf("no Other button in %q", a.msg.CustomIDs())
		}
		id := w.fake.Click(w.ana, a.msg, other)
		r, err := w.fake.WaitResponse(testCtx(t), id)
		if err != nil || r.Type != discordfake.ResponseModal {
			t.Fatalf("Other answered %s (%v), want a modal", r.Raw, err)
		}
		if w.status(t, a.q.ID) != broker.StatusPending {
			t.Errorf("opening the modal changed the question")
		}
		w.fake.SubmitModalFields(w.ana, a.msg, r.Data.CustomID, numbersInputID, "", textInputID, "CockroachDB *cluster*")
		q := a.done(t)
		if got := q.Answers[q.Prompts[0].Question]; got.CustomText != "CockroachDB *cluster*" {
			t.Errorf("answer = %+v", got)
		}
		w.edited(t, a.msg.ID, `CockroachDB \*cluster\*`)
	})

	t.Run("decline", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		w.fake.Click(w.bo, a.msg, data(broker.StepDecline, a.q.Ref(0)))
		q := a.done(t)
		if q.Status != broker.StatusDeclined || q.AnsweredBy.Name != "bo" {
			t.Errorf("result = %s by %+v", q.Status, q.AnsweredBy)
		}
		w.edited(t, a.msg.ID, "Declined by bo at ")
	})

	t.Run("decline command with reason", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		w.fake.Command(w.bo, w.chat, "decline", "id", a.q.ID, "reason", "ask the DBA")
		q := a.done(t)
		if q.Status != broker.StatusDeclined || q.Reason != "ask the DBA" {
			t.Errorf("result = %s %q", q.Status, q.Reason)
		}
		w.edited(t, a.msg.ID, "Declined by bo at ")
	})

	t.Run("timeout", func(t *testing.T) {
		req := dbRequest()
		req.Default = broker.StringList{"SQLite"}
		a := w.ask(t, req)
		if _, err := w.b.Resolve(testCtx(t), a.q.ID, broker.TimedOut(a.q, time.Now())); err != nil {
			t.Fatal(err)
		}
		q := a.done(t)
		if q.Status != broker.StatusTimedOut || q.Fallback != broker.FallbackDefault {
			t.Errorf("result = %s %s", q.Status, q.Fallback)
		}
		w.edited(t, a.msg.ID, "No answer in 30 min: used the default, SQLite")
	})

	t.Run("dialog timeout keeps the answer given", func(t *testing.T) {
		a := w.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
			{Question: "Which database?", Header: "DB", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}, Default: broker.StringList{"sqlite"}},
			{Question: "Which cache?", Header: "Cache", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
		}})
		id := w.fake.Click(w.ana, a.msg, data(broker.StepOption, a.q.Ref(1), 0))
		if _, err := w.fake.WaitResponse(testCtx(t), id); err != nil {
			t.Fatal(err)
		}
		stored, err := w.st.Get(testCtx(t), a.q.ID)
		if err != nil || stored.Given(1) == nil {
			t.Fatalf("the cache answer was not saved: %+v, %v", stored, err)
		}
		if _, err := w.b.Expire(testCtx(t), stored, stored.ExpiresAt); err != nil {
			t.Fatal(err)
		}
		q := a.done(t)
		if c := q.Answers["Which cache?"]; q.Fallback != broker.FallbackDefault || c.AnsweredBy == nil || c.AnsweredBy.Name != "ana" || !q.Answers["Which database?"].Defaulted {
			t.Errorf("result = %s %+v", q.Fallback, q.Answers)
		}
		w.edited(t, a.msg.ID, escape("with 1 of 2 answered: DB: SQLite (default); Cache: Redis (by ana)"))
	})

	t.Run("skip a single question", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		w.fake.Command(w.bo, w.chat, "answer", "id", a.q.ID, "choice", "skip")
		q := a.done(t)
		if q.Status != broker.StatusAnswered || !q.Answers[q.Prompts[0].Question].Skipped {
			t.Errorf("result = %s %+v", q.Status, q.Answers)
		}
		w.edited(t, a.msg.ID, "Skipped by bo at ")
	})

	t.Run("reminder then cancel", func(t *testing.T) {
		a := w.ask(t, dbRequest())
		if err := w.b.Remind(testCtx(t), a.q.ID); err != nil {
			t.Fatalf("Remind: %v", err)
		}
		var reminder *discordfake.Message
		for _, m := range w.fake.Messages(w.chat) {
			if m.Reference != nil && m.Reference.MessageID == a.msg.ID && m.Author.Bot {
				reminder = m
			}
		}
		if reminder == nil || !strings.HasPrefix(reminder.Content, "Reminder: this question is still open and expires in ") {
			t.Fatalf("no reminder replying to the question: %+v", reminder)
		}
		assertNoMentions(t, reminder)
		if _, err := w.b.Cancel(testCtx(t), "agent", a.q.ID, "the agent found the answer"); err != nil {
			t.Fatal(err)
		}
		if q := a.done(t); q.Status != broker.StatusCancelled {
			t.Errorf("status = %s", q.Status)
		}
		w.edited(t, a.msg.ID, "the agent found the answer")
	})

	t.Run("dialog prompt by prompt", func(t *testing.T) {
		a := w.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
			{Question: "Which database?", Header: "DB", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
			{Question: "Which cache?", Header: "Cache", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
		}})
		id := w.fake.Click(w.ana, a.msg, data(broker.StepOption, a.q.Ref(0), 1))
		r, err := w.fake.WaitResponse(testCtx(t), id)
		if err != nil || r.Type != discordfake.ResponseUpdateMessage || !strings.Contains(r.Content(), "✓ SQLite") {
			t.Fatalf("first prompt answered %s (%v), want the message updated with the progress", r.Raw, err)
		}
		if w.status(t, a.q.ID) != broker.StatusPending {
			t.Fatalf("the dialog resolved after one prompt")
		}
		m := w.fake.Message(a.msg.ID)
		if slices.Contains(m.CustomIDs(), data(broker.StepOption, a.q.Ref(0), 0)) || !slices.Contains(m.CustomIDs(), data(broker.StepSkip, a.q.Ref(1))) {
			t.Errorf("after the first answer the buttons are %q", m.CustomIDs())
		}
		w.fake.Click(w.ana, m, data(broker.StepSkip, a.q.Ref(1)))
		q := a.done(t)
		if !q.Answers["Which cache?"].Skipped || !slices.Equal(q.Answers["Which database?"].Selected, []string{"SQLite"}) {
			t.Errorf("answers = %+v", q.Answers)
		}
		w.edited(t, a.msg.ID, "DB: SQLite; Cache: skipped")
	})

	t.Run("direct message to a person", func(t *testing.T) {
		req := dbRequest()
		req.Route = "dm"
		a := w.ask(t, req)
		dm := w.fake.DM(w.ana.ID)
		if a.msg == nil || a.msg.ChannelID != dm {
			t.Fatalf("the question was not posted in ana's DM: %s %s", a.q.Status, a.q.Reason)
		}
		said := w.fake.Say(w.bo, dm, "1", "") // bo is not in this DM: refused
		w.fake.Say(w.ana, dm, "2", "")        // a bare number, the only open question here
		q := a.done(t)
		if q.AnsweredBy.User != w.ana.ID || !slices.Equal(q.Answers[q.Prompts[0].Question].Selected, []string{"SQLite"}) {
			t.Errorf("result = %+v by %+v", q.Answers, q.AnsweredBy)
		}
		w.edited(t, a.msg.ID, "Answered by ana")
		for _, m := range w.fake.Messages(dm) {
			if m.Reference != nil && m.Reference.MessageID == said && strings.HasPrefix(m.Content, "Recorded") {
				t.Errorf("a stranger's message in the DM was recorded: %q", m.Content)
			}
		}
	})

	t.Run("agent text is inert", func(t *testing.T) {
		req := dbRequest()
		req.Question = "@everyone should <@&123456> **really** drop the table?"
		req.Context = "@here [click](https://evil.example)"
		a := w.ask(t, req)
		for _, bad := range []string{"@everyone", "@here", "<@&123456>", "**really**", "[click]("} {
			if strings.Contains(a.msg.Content, bad) {
				t.Errorf("the posted message carries live %q:\n%s", bad, a.msg.Content)
			}
		}
		assertNoMentions(t, a.msg)
	})

	t.Run("missing access makes the question unsupported", func(t *testing.T) {
		w.fake.Deny(w.other, 50001)
		req := dbRequest()
		req.Route = "denied"
		q, _, err := w.b.Ask(testCtx(t), "agent", req)
		if err != nil {
			t.Fatal(err)
		}
		if q.Status != broker.StatusUnsupported || !strings.Contains(q.Reason, "Missing Access") {
			t.Errorf("result = %s %q, want unsupported naming the failure", q.Status, q.Reason)
		}
	})
}

// TestEndToEndRefusals checks that bad answers are refused with a clear
// reason and change nothing.
func TestEndToEndRefusals(t *testing.T) {
	w := newWorld(t, nil)
	a := w.ask(t, dbRequest())
	g := w.ask(t, &broker.AskRequest{Route: "gated", Question: "Deploy to production?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}})

	tests := []struct {
		name  string
		act   func() string // returns the interaction id
		reply string
	}{
		{"from another channel", func() string {
			return w.fake.Command(w.ana, w.other, "answer", "id", a.q.ID, "choice", "1")
		}, "There is no question " + a.q.ID + " here."},
		{"choice out of range", func() string {
			return w.fake.Command(w.ana, w.chat, "answer", "id", a.q.ID, "choice", "7")
		}, "7"},
		{"unknown id", func() string {
			return w.fake.Command(w.ana, w.chat, "answer", "id", "zzzzzz", "choice", "1")
		}, "There is no question zzzzzz here."},
		{"not an id", func() string {
			return w.fake.Command(w.ana, w.chat, "answer", "id", "hello", "choice", "1")
		}, `"hello" is not a question id`},
		{"user not allowed", func() string {
			return w.fake.Click(w.bo, g.msg, data(broker.StepOption, g.q.Ref(0), 0))
		}, "You are not one of the people asked to answer"},
		{"out-of-range select value", func() string {
			return w.fake.Choose(w.ana, a.msg, data(broker.StepPick, a.q.Ref(0)), "9")
		}, "10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := w.fake.WaitResponse(testCtx(t), tt.act())
			if err != nil {
				t.Fatal(err)
			}
			if !r.Ephemeral() || !strings.Contains(r.Content(), escape(tt.reply)) {
				t.Errorf("answered %s, want an ephemeral message containing %q", r.Raw, tt.reply)
			}
			if w.status(t, a.q.ID) != broker.StatusPending || w.status(t, g.q.ID) != broker.StatusPending {
				t.Errorf("a refused answer resolved a question")
			}
			for _, m := range []string{a.msg.ID, g.msg.ID} {
				if w.fake.Message(m).Edits != 0 {
					t.Errorf("a refused answer edited message %s", m)
				}
			}
		})
	}

	t.Run("role responder allowed", func(t *testing.T) {
		w.fake.Click(w.lead, g.msg, data(broker.StepOption, g.q.Ref(0), 1))
		q := g.done(t)
		if q.Status != broker.StatusAnswered || q.AnsweredBy.Name != "lee" {
			t.Errorf("result = %s by %+v", q.Status, q.AnsweredBy)
		}
	})
	t.Run("user responder allowed", func(t *testing.T) {
		g2 := w.ask(t, &broker.AskRequest{Route: "gated", Question: "Roll back?", Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}})
		w.fake.Command(w.ana, w.gated, "answer", "id", g2.q.ID, "choice", "yes")
		if q := g2.done(t); q.Status != broker.StatusAnswered || q.AnsweredBy.User != w.ana.ID {
			t.Errorf("result = %s by %+v", q.Status, q.AnsweredBy)
		}
	})
}

// TestEndToEndHTTP answers through the signed HTTP interactions endpoint.
func TestEndToEndHTTP(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	w := newWorld(t, func(c *Config) { c.Mode, c.PublicKey = ModeHTTP, hex.EncodeToString(pub) })
	srv := httptest.NewServer(w.ch.Handler())
	t.Cleanup(srv.Close)
	a := w.ask(t, dbRequest())

	_, forged := w.fake.ButtonInteraction(w.bo, a.msg, data(broker.StepOption, a.q.Ref(0), 0))
	d, err := w.fake.Deliver(testCtx(t), srv.URL, priv, time.Now().Add(-10*time.Minute), forged)
	if err != nil || d.Status != 401 {
		t.Fatalf("an old request answered %d (%v), want 401", d.Status, err)
	}
	if w.status(t, a.q.ID) != broker.StatusPending {
		t.Fatalf("a refused request resolved the question")
	}

	_, body := w.fake.ButtonInteraction(w.ana, a.msg, data(broker.StepOption, a.q.Ref(0), 1))
	d, err = w.fake.Deliver(testCtx(t), srv.URL, priv, time.Now(), body)
	if err != nil || d.Status != 200 || d.Response.Type != discordfake.ResponseUpdateMessage {
		t.Fatalf("signed tap answered %d %s (%v)", d.Status, d.Body, err)
	}
	q := a.done(t)
	if q.AnsweredBy.Name != "ana" || !slices.Equal(q.Answers[q.Prompts[0].Question].Selected, []string{"SQLite"}) {
		t.Errorf("result = %+v by %+v", q.Answers, q.AnsweredBy)
	}
	w.edited(t, a.msg.ID, "Answered by ana")
}
