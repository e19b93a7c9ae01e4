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
// prompt after Other… or Note….
func (e *env) lastPrompt(chat int64, question int) telegramfake.Message {
	e.t.Helper()
	msgs := e.fake.BotMessages(chat)
	p := msgs[len(msgs)-1]
	if !p.ForceReply || p.ReplyTo != question {
		e.t.Fatalf("no force-reply prompt on message %d: %+v", question, p)
	}
	return p
}

// TestNotesAndButtons answers with an option and a note, with ticked
// options and a note, with Skip and with Not ready, all by tapping, as
// people do in Telegram.
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
			name: "Note… then the option",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				toast := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["📝 Note…"]))
				if toast.Text != "Type your note in the reply box, then tap the option." {
					t.Errorf("toast %q", toast.Text)
				}
				prompt := e.lastPrompt(team.ID, m.ID)
				if !strings.Contains(prompt.Text, "type a note for: Which database should we use?") ||
					!strings.Contains(prompt.Text, "for option 1 the same as typing /answer "+q.ID+" 1 other …") {
					t.Errorf("note prompt reads %q", prompt.Text)
				}
				mine := e.fake.Send(ana, team.ID, "with WAL <on>", prompt.ID)
				if r := e.waitReply(team.ID, mine); r.Text != "Note kept: “with WAL <on>”. Now tap the option it goes with." {
					t.Errorf("reply %q", r.Text)
				}
				if s := e.get(q.ID).Status; s != broker.StatusPending {
					t.Fatalf("the note alone changed the question to %s", s)
				}
				m = e.waitMessage(team.ID, m.ID, "offered the options with the note", func(m telegramfake.Message) bool {
					return buttons(m)["2. SQLite + note"] != ""
				})
				b := buttons(m)
				if b["2. SQLite + note"] != stepData(broker.StepWithNote, q.Ref(0), 1) || b["✖ Drop note"] == "" || b["📝 Change note…"] == "" {
					t.Errorf("keyboard with a held note %v", b)
				}
				got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, b["2. SQLite + note"]))
				if got.Text != "Recorded: SQLite (note: “with WAL <on>”)" || got.ShowAlert {
					t.Errorf("toast %+v", got)
				}
			},
			status: broker.StatusAnswered, selected: []string{"SQLite"}, custom: "with WAL <on>",
		},
		{
			name: "toggles, Other as the note, then Submit",
			req:  multi,
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 1. Europe"]))
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 3. Asia"]))
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
				prompt := e.lastPrompt(team.ID, m.ID)
				if !strings.Contains(prompt.Text, "type a note to go with 1, 3 for: Which regions?") ||
					!strings.Contains(prompt.Text, "/answer "+q.ID+" 1,3 other …") {
					t.Errorf("note prompt reads %q", prompt.Text)
				}
				mine := e.fake.Send(ana, team.ID, "and tags", prompt.ID)
				if r := e.waitReply(team.ID, mine); r.Text != "Note kept: “and tags”. Tap Submit to send it with your choice." {
					t.Errorf("reply %q", r.Text)
				}
				m = e.waitMessage(team.ID, m.ID, "offered Submit with the note", func(m telegramfake.Message) bool {
					return buttons(m)["Submit (1, 3 + note)"] != ""
				})
				done := buttons(m)["Submit (1, 3 + note)"]
				if done != stepData(broker.StepWithNote, q.Ref(0), 0, 2) {
					t.Errorf("Submit carries %q", done)
				}
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, done)); got.Text != "Recorded: Europe, Asia (note: “and tags”)" {
					t.Errorf("toast %q", got.Text)
				}
			},
			status: broker.StatusAnswered, selected: []string{"Europe", "Asia"}, custom: "and tags",
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
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["📝 Note…"]))
	prompt := e.lastPrompt(team.ID, m.ID)
	e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL", prompt.ID))
	m = e.waitMessage(team.ID, m.ID, "offered the options with the note", func(m telegramfake.Message) bool {
		return buttons(m)["2. SQLite + note"] != ""
	})

	e.ch.notes = newHeldNotes() // a restart
	got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["2. SQLite + note"]))
	if !got.ShowAlert || !strings.HasPrefix(got.Text, "Your note was lost") {
		t.Errorf("tap after the restart told %+v", got)
	}
	if s := e.get(q.ID).Status; s != broker.StatusPending {
		t.Fatalf("the option was recorded without its note: %s", s)
	}
	m = e.waitMessage(team.ID, m.ID, "dropped the note from its buttons", func(m telegramfake.Message) bool {
		return buttons(m)["2. SQLite"] == stepData(broker.StepOption, q.Ref(0), 1)
	})

	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["📝 Note…"])); got.ShowAlert {
		t.Fatalf("Note… told %+v", got)
	}
	prompt = e.lastPrompt(team.ID, m.ID)
	e.ch.others = newOtherPrompts() // another restart, before the reply
	r := e.waitReply(team.ID, e.fake.Send(ana, team.ID, "with WAL", prompt.ID))
	if !strings.HasPrefix(r.Text, "Your note was not kept") {
		t.Errorf("reply to a forgotten note prompt: %q", r.Text)
	}
	if s := e.get(q.ID).Status; s != broker.StatusPending {
		t.Fatalf("the note became an answer: %s", s)
	}
}

// TestDropNote: ✖ Drop note forgets the note and puts the plain option
// buttons back.
func TestDropNote(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(dbRequest(), team)
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["📝 Note…"]))
	e.waitReply(team.ID, e.fake.Send(ana, team.ID, "maybe", e.lastPrompt(team.ID, m.ID).ID))
	m = e.waitMessage(team.ID, m.ID, "showed the note", func(m telegramfake.Message) bool { return buttons(m)["✖ Drop note"] != "" })
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["✖ Drop note"])); got.Text != "Note dropped." {
		t.Errorf("toast %q", got.Text)
	}
	m = e.waitMessage(team.ID, m.ID, "dropped the note", func(m telegramfake.Message) bool { return buttons(m)["✖ Drop note"] == "" })
	if b := buttons(m); b["2. SQLite"] != stepData(broker.StepOption, q.Ref(0), 1) || b["📝 Note…"] == "" {
		t.Errorf("keyboard after dropping the note %v", b)
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

	if r := e.waitReply(team.ID, mine); r.Text != "Note kept: “and tags”. Tap Submit to send it with your choice." {
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
