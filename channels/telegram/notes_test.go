package telegram

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// lastPrompt returns the bot's latest message in chat: the force-reply
// box after Other or note… or Answer….
func (e *env) lastPrompt(chat int64, question int) telegramfake.Message {
	e.t.Helper()
	msgs := e.fake.BotMessages(chat)
	p := msgs[len(msgs)-1]
	if !p.ForceReply || p.ReplyTo != question {
		e.t.Fatalf("no force-reply prompt on message %d: %+v", question, p)
	}
	return p
}

// TestNotesAndButtons answers through the one reply box (with an option
// and a note, with the text alone, with ticked options and a note), with
// Skip and with Not ready, all by tapping, as people do in Telegram.
func TestNotesAndButtons(t *testing.T) {
	multi := regionsRequest()
	tests := []struct {
		name     string
		req      *broker.AskRequest
		act      func(e *env, q *broker.Question, m telegramfake.Message)
		status   broker.Status
		selected []string
		custom   string
		skipped  bool
		notReady bool
	}{
		{
			name: "Other or note…, then the option",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				if _, ok := buttons(m)["📝 Note…"]; ok {
					t.Errorf("a second box button beside Other or note…: %v", buttons(m))
				}
				toast := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
				if toast.Text != "Type in the reply box, then tap the option it goes with or Send as my answer." {
					t.Errorf("toast %q", toast.Text)
				}
				prompt := e.lastPrompt(team.ID, m.ID)
				if !strings.Contains(prompt.Text, "Ana, type your answer, or a note to go with an option, for: Which database should we use?") ||
					!strings.Contains(prompt.Text, "then tap the option it goes with, or Send as my answer to send it alone") ||
					!strings.Contains(prompt.Text, "/answer "+q.ID+" 1 other … for option 1, or /answer "+q.ID+" other …") {
					t.Errorf("the box reads %q", prompt.Text)
				}
				mine := e.fake.Send(ana, team.ID, "with WAL <on>", prompt.ID)
				if r := e.waitReply(team.ID, mine); r.Text != "Kept: “with WAL <on>”. Tap an option to send it as that option's note, or Send as my answer to send it alone." {
					t.Errorf("reply %q", r.Text)
				}
				if s := e.get(q.ID).Status; s != broker.StatusPending {
					t.Fatalf("the reply alone changed the question to %s", s)
				}
				m = e.waitMessage(team.ID, m.ID, "offered the options with the note", func(m telegramfake.Message) bool {
					return buttons(m)["2. SQLite + note"] != ""
				})
				want := map[string]string{
					"⭐ 1. Postgres + note": stepData(broker.StepWithNote, q.Ref(0), 0),
					"2. SQLite + note":     stepData(broker.StepWithNote, q.Ref(0), 1),
					"Send as my answer":    stepData(broker.StepWithNote, q.Ref(0)),
					"📝 Change…":            stepData(broker.StepOther, q.Ref(0)),
					"✖ Drop note":          stepData(broker.StepDropNote, q.Ref(0)),
					"Skip":                 stepData(broker.StepSkip, q.Ref(0)),
					"Not ready":            stepData(broker.StepNotReady, q.Ref(0)),
					"Decline":              stepData(broker.StepDecline, q.Ref(0)),
				}
				if b := buttons(m); !reflect.DeepEqual(b, want) {
					t.Errorf("keyboard with held text %v, want %v", b, want)
				}
				got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["2. SQLite + note"]))
				if got.Text != "Recorded: SQLite (note: “with WAL <on>”)" || got.ShowAlert {
					t.Errorf("toast %+v", got)
				}
			},
			status: broker.StatusAnswered, selected: []string{"SQLite"}, custom: "with WAL <on>",
		},
		{
			name: "Other or note…, then Send as my answer",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
				e.waitReply(team.ID, e.fake.Send(ana, team.ID, "MariaDB, <b>please</b>", e.lastPrompt(team.ID, m.ID).ID))
				m = e.waitMessage(team.ID, m.ID, "offered the text as the answer", func(m telegramfake.Message) bool {
					return buttons(m)["Send as my answer"] != ""
				})
				got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Send as my answer"]))
				if got.Text != "Recorded: “MariaDB, <b>please</b>”" || got.ShowAlert {
					t.Errorf("toast %+v", got)
				}
			},
			status: broker.StatusAnswered, selected: []string{}, custom: "MariaDB, <b>please</b>",
		},
		{
			name: "📝 Change… replaces the held text",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
				e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL", e.lastPrompt(team.ID, m.ID).ID))
				m = e.waitMessage(team.ID, m.ID, "offered Change…", func(m telegramfake.Message) bool { return buttons(m)["📝 Change…"] != "" })
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["📝 Change…"]))
				prompt := e.lastPrompt(team.ID, m.ID)
				if !strings.Contains(prompt.Text, "It replaces “with WAL”.") {
					t.Errorf("the box does not show the held text: %q", prompt.Text)
				}
				e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL off", prompt.ID))
				got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["⭐ 1. Postgres + note"]))
				if got.Text != "Recorded: Postgres (note: “with WAL off”)" {
					t.Errorf("toast %q", got.Text)
				}
			},
			status: broker.StatusAnswered, selected: []string{"Postgres (Recommended)"}, custom: "with WAL off",
		},
		{
			name: "Answer… on a prompt without options answers at once",
			req:  &broker.AskRequest{Question: "Anything else?"},
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Answer…"])); got.Text != "Type your answer in the reply box." {
					t.Errorf("toast %q", got.Text)
				}
				prompt := e.lastPrompt(team.ID, m.ID)
				if !strings.Contains(prompt.Text, "Ana, type your answer for: Anything else?") || strings.Contains(prompt.Text, "note") {
					t.Errorf("the box reads %q", prompt.Text)
				}
				mine := e.fake.Send(ana, team.ID, "ship it", prompt.ID)
				if r := e.waitReply(team.ID, mine); r.Text != "Recorded: “ship it”" {
					t.Errorf("reply %q", r.Text)
				}
			},
			status: broker.StatusAnswered, selected: []string{}, custom: "ship it",
		},
		{
			name: "toggles, Other or note…, then Submit with the note",
			req:  multi,
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 1. Europe"]))
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 3. Asia"]))
				toast := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
				if toast.Text != "Type in the reply box, then tap Submit or Send as my answer." {
					t.Errorf("toast %q", toast.Text)
				}
				prompt := e.lastPrompt(team.ID, m.ID)
				if !strings.Contains(prompt.Text, "type your answer, or a note to go with 1, 3, for: Which regions?") ||
					!strings.Contains(prompt.Text, "then tap Submit to send it as the note, or Send as my answer to send it alone") ||
					!strings.Contains(prompt.Text, "/answer "+q.ID+" 1,3 other … or /answer "+q.ID+" other …") {
					t.Errorf("the box reads %q", prompt.Text)
				}
				mine := e.fake.Send(ana, team.ID, "and tags", prompt.ID)
				if r := e.waitReply(team.ID, mine); r.Text != "Kept: “and tags”. Tap Submit to send it with your choice, or Send as my answer to send it alone." {
					t.Errorf("reply %q", r.Text)
				}
				m = e.waitMessage(team.ID, m.ID, "offered Submit with the note", func(m telegramfake.Message) bool {
					return buttons(m)["Submit (1, 3 + note)"] != ""
				})
				b := buttons(m)
				if b["Submit (1, 3 + note)"] != stepData(broker.StepWithNote, q.Ref(0), 0, 2) || b["Send as my answer"] != stepData(broker.StepWithNote, q.Ref(0)) ||
					b["📝 Change…"] != stepData(broker.StepOther, q.Ref(0)) || b["✖ Drop note"] == "" {
					t.Errorf("keyboard with held text %v", b)
				}
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, b["Submit (1, 3 + note)"])); got.Text != "Recorded: Europe, Asia (note: “and tags”)" {
					t.Errorf("toast %q", got.Text)
				}
			},
			status: broker.StatusAnswered, selected: []string{"Europe", "Asia"}, custom: "and tags",
		},
		{
			name: "multi-select: Other or note… with nothing ticked, then Send as my answer",
			req:  multi,
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
				prompt := e.lastPrompt(team.ID, m.ID)
				if !strings.Contains(prompt.Text, "a note to go with the options you tick, for: Which regions?") ||
					!strings.Contains(prompt.Text, "then tick options and tap Submit to send it as the note") {
					t.Errorf("the box reads %q", prompt.Text)
				}
				mine := e.fake.Send(ana, team.ID, "Antarctica", prompt.ID)
				if r := e.waitReply(team.ID, mine); r.Text != "Kept: “Antarctica”. Tick options, then tap Submit to send it as their note; or tap Send as my answer to send it alone." {
					t.Errorf("reply %q", r.Text)
				}
				m = e.waitMessage(team.ID, m.ID, "offered the text as the answer", func(m telegramfake.Message) bool {
					return buttons(m)["Send as my answer"] != ""
				})
				if got := buttons(m)["Submit"]; got != stepData(broker.StepSubmit, q.Ref(0)) {
					t.Errorf("Submit with nothing ticked carries %q", got)
				}
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Send as my answer"])); got.Text != "Recorded: “Antarctica”" {
					t.Errorf("toast %q", got.Text)
				}
			},
			status: broker.StatusAnswered, selected: []string{}, custom: "Antarctica",
		},
		{
			name: "Skip on a single question",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Skip"])); got.Text != "Recorded: skipped" {
					t.Errorf("toast %q", got.Text)
				}
			},
			status: broker.StatusAnswered, selected: []string{}, skipped: true,
		},
		{
			name: "Not ready",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Not ready"]))
				if got.Text != "Recorded: you want to discuss before answering; the agent has been told." {
					t.Errorf("toast %q", got.Text)
				}
			},
			status: broker.StatusDeclined, notReady: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			q, m := e.ask(tt.req, team)
			done := e.waitAsync(q.ID)
			tt.act(e, q, m)
			got := <-done
			if got == nil || got.Status != tt.status || got.NotReady != tt.notReady {
				t.Fatalf("result %+v, want %s (not ready %v)", got, tt.status, tt.notReady)
			}
			if tt.status == broker.StatusAnswered {
				a := got.Answers[q.Prompts[0].Question]
				if !reflect.DeepEqual(a.Selected, tt.selected) || a.CustomText != tt.custom || a.Skipped != tt.skipped {
					t.Errorf("answer %+v, want selected %v custom %q skipped %v", a, tt.selected, tt.custom, tt.skipped)
				}
			}
			e.waitMessage(team.ID, m.ID, "showed the outcome", func(m telegramfake.Message) bool {
				return strings.Contains(m.Text, "by @ana at ") && m.Keyboard == nil
			})
		})
	}
}

// TestNoteLostInARestart: a held note that a restart forgot is never
// sent without it: the tap says so and records nothing, and a reply to a
// note prompt after the restart is refused the same way.
func TestNoteLostInARestart(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(dbRequest(), team)
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
	prompt := e.lastPrompt(team.ID, m.ID)
	e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL", prompt.ID))
	m = e.waitMessage(team.ID, m.ID, "offered the options with the note", func(m telegramfake.Message) bool {
		return buttons(m)["2. SQLite + note"] != ""
	})

	e.ch.notes = newHeldNotes() // a restart
	got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["2. SQLite + note"]))
	if !got.ShowAlert || got.Text != "Your text was lost (the bridge restarted, or it was sent already); nothing was recorded. Tap Other or note… and type it again." {
		t.Errorf("tap after the restart told %+v", got)
	}
	if s := e.get(q.ID).Status; s != broker.StatusPending {
		t.Fatalf("the option was recorded without its note: %s", s)
	}
	m = e.waitMessage(team.ID, m.ID, "dropped the note from its buttons", func(m telegramfake.Message) bool {
		return buttons(m)["2. SQLite"] == stepData(broker.StepOption, q.Ref(0), 1)
	})

	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"])); got.ShowAlert {
		t.Fatalf("Other or note… told %+v", got)
	}
	prompt = e.lastPrompt(team.ID, m.ID)
	e.ch.others = newOtherPrompts() // another restart, before the reply
	r := e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL", prompt.ID))
	if r.Text != "Your reply was not kept (the bridge restarted); nothing was recorded. Tap Other or note… and type it again, or type one of the commands shown above." {
		t.Errorf("reply to a forgotten note prompt: %q", r.Text)
	}
	if s := e.get(q.ID).Status; s != broker.StatusPending {
		t.Fatalf("the reply became an answer: %s", s)
	}
}

// TestDropNote: ✖ Drop note forgets the held text and puts the plain
// option buttons back; the option then answers without it.
func TestDropNote(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(dbRequest(), team)
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
	e.waitReply(team.ID, e.fake.Send(ana, team.ID, "maybe", e.lastPrompt(team.ID, m.ID).ID))
	m = e.waitMessage(team.ID, m.ID, "showed the note", func(m telegramfake.Message) bool { return buttons(m)["✖ Drop note"] != "" })
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["✖ Drop note"])); got.Text != "Note dropped." {
		t.Errorf("toast %q", got.Text)
	}
	m = e.waitMessage(team.ID, m.ID, "dropped the note", func(m telegramfake.Message) bool { return buttons(m)["✖ Drop note"] == "" })
	b := buttons(m)
	if b["2. SQLite"] != stepData(broker.StepOption, q.Ref(0), 1) || b["Other or note…"] != stepData(broker.StepOther, q.Ref(0)) ||
		b["Send as my answer"] != "" || b["📝 Change…"] != "" {
		t.Errorf("keyboard after dropping the note %v", b)
	}
	if _, ok := e.ch.notes.get(noteKey{q.ID, 0}); ok {
		t.Error("the dropped text is still held")
	}
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, b["2. SQLite"])); got.Text != "Recorded: SQLite" {
		t.Errorf("the option after dropping the note told %q", got.Text)
	}
	if a := e.waitResolved(q.ID).Answers[q.Prompts[0].Question]; a.CustomText != "" {
		t.Errorf("the dropped note was sent: %+v", a)
	}
}

// TestNoteSurvivesALateEdit: an edit of the question message drawn before
// a note was held (the broker's Update for a tick, slow to reach Telegram)
// lands before the redraw that offers the note, never after it: the
// message keeps Submit with the note. Telegram applying the tick's edit late
// is played by holding that call in the fake.
func TestNoteSurvivesALateEdit(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(regionsRequest(), team)
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 1. Europe"]))
	m = e.waitMessage(team.ID, m.ID, "showed the first tick", func(m telegramfake.Message) bool {
		return buttons(m)["✓ 1. Europe"] != ""
	})

	edits := len(e.fake.Calls("editMessageText"))
	release := e.fake.HoldNext("editMessageText")
	defer release()
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 3. Asia"]))
	if !e.fake.WaitFor(waitLimit, func() bool { return len(e.fake.Calls("editMessageText")) > edits }) {
		t.Fatal("the second tick was never sent as an edit")
	}
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
	mine := e.fake.Send(ana, team.ID, "and tags", e.lastPrompt(team.ID, m.ID).ID)
	// Give the redraw its chance to overtake the held edit, as it did
	// before edits of one message were serialised.
	redraws := func() bool { return len(e.fake.Calls("editMessageReplyMarkup")) > 0 }
	e.fake.WaitFor(2*time.Second, redraws)
	release()

	if r := e.waitReply(team.ID, mine); r.Text != "Kept: “and tags”. Tap Submit to send it with your choice, or Send as my answer to send it alone." {
		t.Errorf("reply %q", r.Text)
	}
	if !e.fake.WaitFor(waitLimit, redraws) {
		t.Fatal("the keyboard was never redrawn with the note")
	}
	m, _ = e.fake.Message(team.ID, m.ID)
	b := buttons(m)
	if b["Submit (1, 3 + note)"] != stepData(broker.StepWithNote, q.Ref(0), 0, 2) || b["✓ 3. Asia"] == "" {
		t.Fatalf("after every edit the message offers %v, want Submit (1, 3 + note)", m.Keyboard)
	}
	if n := e.ch.drawing.size(); n != 0 {
		t.Errorf("%d message locks kept after the edits ended", n)
	}
}
