package telegram

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// waitAsync runs the agent's blocking Wait in the background.
func (e *env) waitAsync(id string) <-chan *broker.Question {
	done := make(chan *broker.Question, 1)
	go func() {
		ctx, cancel := context.WithTimeout(e.ctx, waitLimit)
		defer cancel()
		q, err := e.b.Wait(ctx, "agent", id)
		if err != nil {
			e.t.Errorf("wait: %v", err)
		}
		done <- q
	}()
	return done
}

func TestPostedQuestionReadsWell(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	q, m := e.ask(dbRequest(), team)
	for _, want := range []string{
		"🏷 Database", "Which database should we use?",
		"1. ⭐ Postgres — Mature, relational",
		"2. SQLite — Embedded, zero setup",
		"We are choosing storage for the job queue.",
		"Expires ", "/answer " + q.ID + " 1", "⭐ " + broker.RecommendedHint,
	} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("message lacks %q; it reads:\n%s", want, m.Text)
		}
	}
	if m.ParseMode != "HTML" {
		t.Errorf("parse mode %q, want HTML", m.ParseMode)
	}
	ref := q.Ref(0)
	want := map[string]string{
		"⭐ 1. Postgres":  stepData(broker.StepOption, ref, 0),
		"2. SQLite":      stepData(broker.StepOption, ref, 1),
		"Other or note…": stepData(broker.StepOther, ref),
		"Skip":           stepData(broker.StepSkip, ref),
		"Not ready":      stepData(broker.StepNotReady, ref),
		"Decline":        stepData(broker.StepDecline, ref),
	}
	if got := buttons(m); !reflect.DeepEqual(got, want) {
		t.Errorf("buttons %v, want %v", got, want)
	}
}

func TestAnswers(t *testing.T) {
	multi := regionsRequest()
	tests := []struct {
		name string
		req  *broker.AskRequest
		act  func(e *env, q *broker.Question, m telegramfake.Message)
		// toast or reply the person sees
		told     string
		selected []string
		custom   string
	}{
		{
			name: "button tap",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				id := e.fake.Tap(ana, team.ID, m.ID, buttons(m)["2. SQLite"])
				if got := e.waitCallback(id); got.Text != "Recorded: SQLite" || got.ShowAlert {
					t.Errorf("toast %+v, want Recorded: SQLite", got)
				}
			},
			selected: []string{"SQLite"},
		},
		{
			name: "reply 2 to the question",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				mine := e.fake.Send(ana, team.ID, "2", m.ID)
				if r := e.waitReply(team.ID, mine); r.Text != "Recorded: SQLite" {
					t.Errorf("reply %q, want Recorded: SQLite", r.Text)
				}
			},
			selected: []string{"SQLite"},
		},
		{
			name: "Other button, free text, then Send as my answer",
			req:  dbRequest(),
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				cb := e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"])
				if got := e.waitCallback(cb); got.Text != "Type in the reply box, then tap the option it goes with or Send as my answer." {
					t.Errorf("toast %q", got.Text)
				}
				msgs := e.fake.BotMessages(team.ID)
				prompt := msgs[len(msgs)-1]
				if !prompt.ForceReply || !strings.Contains(prompt.Text, "Ana, type your answer, or a note to go with an option, for: Which database should we use?") || prompt.ReplyTo != m.ID {
					t.Fatalf("free-text prompt %+v", prompt)
				}
				e.waitReply(team.ID, e.fake.Send(ana, team.ID, "MariaDB, <b>please</b>", prompt.ID))
				m = e.waitMessage(team.ID, m.ID, "offered the text as the answer", func(m telegramfake.Message) bool {
					return buttons(m)["Send as my answer"] != ""
				})
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Send as my answer"])); got.Text != "Recorded: “MariaDB, <b>please</b>”" {
					t.Errorf("toast %q", got.Text)
				}
			},
			selected: []string{},
			custom:   "MariaDB, <b>please</b>",
		},
		{
			name: "answer@botname for multi-select",
			req:  multi,
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				mine := e.fake.Send(ana, team.ID, "/answer@askbridge_bot "+q.ID+" 1,3", 0)
				if r := e.waitReply(team.ID, mine); r.Text != "Recorded: Europe, Asia" {
					t.Errorf("reply %q", r.Text)
				}
			},
			selected: []string{"Europe", "Asia"},
		},
		{
			name: "toggles and Submit",
			req:  multi,
			act: func(e *env, q *broker.Question, m telegramfake.Message) {
				if got := buttons(m)["Submit"]; got != stepData(broker.StepSubmit, q.Ref(0)) {
					t.Errorf("Submit before a selection carries %q", got)
				}
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Submit"])); got.Text != "Nothing is ticked yet: tap the options you want first." || got.ShowAlert {
					t.Errorf("Submit before a selection told %+v", got)
				}
				e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 3. Asia"]))
				toast := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 1. Europe"]))
				if toast.Text != "Selected: Europe, Asia. Tap Submit when ready." {
					t.Errorf("toast %q", toast.Text)
				}
				m = e.waitMessage(team.ID, m.ID, "showed the selection", func(m telegramfake.Message) bool {
					_, ok := buttons(m)["Submit (1, 3)"]
					return ok
				})
				b := buttons(m)
				if b["✓ 1. Europe"] == "" || b["☐ 2. Americas"] == "" || b["✓ 3. Asia"] == "" {
					t.Errorf("check marks wrong: %v", b)
				}
				if got := b["Submit (1, 3)"]; got != stepData(broker.StepSubmit, q.Ref(0), 0, 2) {
					t.Errorf("Submit carries %q", got)
				}
				if got := e.get(q.ID).Selections[0]; !reflect.DeepEqual(got, []int{0, 2}) {
					t.Errorf("selection in the store %v", got)
				}
				if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, b["Submit (1, 3)"])); got.Text != "Recorded: Europe, Asia" {
					t.Errorf("toast %q", got.Text)
				}
			},
			selected: []string{"Europe", "Asia"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			q, m := e.ask(tt.req, team)
			done := e.waitAsync(q.ID)
			tt.act(e, q, m)
			got := <-done
			if got == nil || got.Status != broker.StatusAnswered {
				t.Fatalf("result %+v, want answered", got)
			}
			a := got.Answers[q.Prompts[0].Question]
			if !reflect.DeepEqual(a.Selected, tt.selected) || a.CustomText != tt.custom {
				t.Errorf("answer %+v, want selected %v custom %q", a, tt.selected, tt.custom)
			}
			if got.AnsweredBy == nil || got.AnsweredBy.User != "42" || got.AnsweredBy.Name != "@ana" {
				t.Errorf("answered by %+v", got.AnsweredBy)
			}
			edited := e.waitMessage(team.ID, m.ID, "showed the outcome", func(m telegramfake.Message) bool {
				return strings.Contains(m.Text, "Answered by @ana at ")
			})
			if edited.Keyboard != nil {
				t.Errorf("buttons left after the answer: %v", edited.Keyboard)
			}
			if !strings.Contains(edited.Text, q.Prompts[0].Question) {
				t.Errorf("the outcome lost the question: %q", edited.Text)
			}
		})
	}
}

func TestDeclineWithReason(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(dbRequest(), team)
	mine := e.fake.Send(ana, team.ID, "/decline "+q.ID+" not now, <ask> tomorrow", 0)
	if r := e.waitReply(team.ID, mine); r.Text != "Recorded: declined." {
		t.Errorf("reply %q", r.Text)
	}
	got := e.waitResolved(q.ID)
	if got.Status != broker.StatusDeclined || got.Reason != "not now, <ask> tomorrow" {
		t.Errorf("result %s %q", got.Status, got.Reason)
	}
	edited := e.waitMessage(team.ID, m.ID, "showed the decline", func(m telegramfake.Message) bool {
		return strings.Contains(m.Text, "Declined by @ana at ")
	})
	if !strings.Contains(edited.Text, ": not now, <ask> tomorrow") || edited.Keyboard != nil {
		t.Errorf("declined copy reads %q with keyboard %v", edited.Text, edited.Keyboard)
	}
}

func TestTimeoutEditsTheMessage(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	q, m := e.ask(dbRequest(), team)
	if _, err := e.b.Resolve(e.ctx, q.ID, broker.TimedOut(q, q.ExpiresAt)); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	edited := e.waitMessage(team.ID, m.ID, "showed the timeout", func(m telegramfake.Message) bool {
		return strings.Contains(m.Text, "Expired at ")
	})
	if !strings.Contains(edited.Text, "with no answer") || edited.Keyboard != nil {
		t.Errorf("timed-out copy reads %q with keyboard %v", edited.Text, edited.Keyboard)
	}
	calls := e.fake.Calls("editMessageText")
	if got := calls[len(calls)-1].Params.Get("reply_markup"); got != `{"inline_keyboard":[]}` {
		t.Errorf("reply_markup sent %q, want an empty inline keyboard", got)
	}
}

// TestDialogTimeoutKeepsTheAnswer checks the copy of a dialog that timed
// out after a person answered one prompt: the answer stays, with who gave
// it, and the other prompt took its default.
func TestDialogTimeoutKeepsTheAnswer(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(&broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Header: "DB", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}, Default: broker.StringList{"sqlite"}},
		{Question: "Which cache?", Header: "Cache", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}}, team)
	if !strings.Contains(m.Text, "default: DB: SQLite") {
		t.Errorf("the copy does not name the database's default:\n%s", m.Text)
	}
	mine := e.fake.Send(ana, team.ID, "/answer "+q.ID+".2 Redis", 0)
	if r := e.waitReply(team.ID, mine); !strings.HasPrefix(r.Text, "Recorded: Redis (2 of 2)") {
		t.Fatalf("reply %q", r.Text)
	}
	stored, err := e.st.Get(e.ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.b.Expire(e.ctx, stored, q.ExpiresAt); err != nil {
		t.Fatalf("expire: %v", err)
	}
	edited := e.waitMessage(team.ID, m.ID, "showed the timeout", func(m telegramfake.Message) bool {
		return strings.Contains(m.Text, "Expired at ")
	})
	if want := "with 1 of 2 answered: DB: SQLite (default); Cache: Redis (by @ana)"; !strings.Contains(edited.Text, want) || edited.Keyboard != nil {
		t.Errorf("timed-out copy reads %q with keyboard %v, want %q", edited.Text, edited.Keyboard, want)
	}
}

// TestSkipSingleQuestion checks that a typed skip answers a single
// question, and the copy says who skipped it.
func TestSkipSingleQuestion(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(dbRequest(), team)
	mine := e.fake.Send(ana, team.ID, "/answer "+q.ID+" skip", 0)
	if r := e.waitReply(team.ID, mine); r.Text != "Recorded: skipped" {
		t.Errorf("reply %q", r.Text)
	}
	got := e.waitResolved(q.ID)
	if a := got.Answers[q.Prompts[0].Question]; got.Status != broker.StatusAnswered || !a.Skipped || a.AnsweredBy == nil {
		t.Errorf("result %s %+v", got.Status, a)
	}
	e.waitMessage(team.ID, m.ID, "showed the skip", func(m telegramfake.Message) bool {
		return strings.Contains(m.Text, "Skipped by @ana at ") && m.Keyboard == nil
	})
}

func TestDialogAdvancesPromptByPrompt(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(&broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Header: "DB", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "Which cache?", Header: "Cache", Options: []broker.Option{{Label: "Redis"}, {Label: "None"}}},
	}}, team)
	for _, want := range []string{"2 questions", "👉 1. 🏷 DB Which database?", "▫️ 2. 🏷 Cache Which cache?", "Now question 1 of 2"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("dialog lacks %q:\n%s", want, m.Text)
		}
	}
	b := buttons(m)
	if b["2. SQLite"] != stepData(broker.StepOption, q.Ref(0), 1) || b["Skip"] != stepData(broker.StepSkip, q.Ref(0)) {
		t.Fatalf("first keyboard %v", b)
	}
	if got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, b["2. SQLite"])); !strings.HasPrefix(got.Text, "Recorded: SQLite (1 of 2)") {
		t.Errorf("toast %q", got.Text)
	}
	m = e.waitMessage(team.ID, m.ID, "moved to the second prompt", func(m telegramfake.Message) bool {
		return buttons(m)["1. Redis"] != ""
	})
	if !strings.Contains(m.Text, "✅ 1. 🏷 DB Which database?\n    → SQLite") || !strings.Contains(m.Text, "👉 2.") {
		t.Errorf("progress not shown:\n%s", m.Text)
	}
	b = buttons(m)
	if b["1. Redis"] != stepData(broker.StepOption, q.Ref(1), 0) || b["Skip"] != stepData(broker.StepSkip, q.Ref(1)) {
		t.Fatalf("second keyboard %v", b)
	}
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, b["Skip"]))
	got := e.waitResolved(q.ID)
	if got.Answers["Which database?"].Selected[0] != "SQLite" || !got.Answers["Which cache?"].Skipped {
		t.Errorf("answers %+v", got.Answers)
	}
	e.waitMessage(team.ID, m.ID, "showed the outcome", func(m telegramfake.Message) bool {
		return strings.Contains(m.Text, "Answered by @ana at ") && strings.Contains(m.Text, "DB: SQLite; Cache: skipped") && m.Keyboard == nil
	})
}

func TestBarePrivateAnswer(t *testing.T) {
	e := newEnv(t, envOptions{})
	req := dbRequest()
	req.Route = "dm"
	q, _ := e.ask(req, anaDM)
	mine := e.fake.Send(ana, anaDM.ID, "2", 0)
	if r := e.waitReply(anaDM.ID, mine); r.Text != "Recorded: SQLite" {
		t.Errorf("reply %q", r.Text)
	}
	if got := e.waitResolved(q.ID); got.Answers[q.Prompts[0].Question].Selected[0] != "SQLite" {
		t.Errorf("answer %+v", got.Answers)
	}
}
