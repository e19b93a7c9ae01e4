package telegram

import (
	"net/http"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

func TestModes(t *testing.T) {
	t.Run("polling deletes the webhook, then long-polls", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		if !e.ch.Singleton() {
			t.Error("polling must run on one instance only")
		}
		if !e.fake.WaitFor(waitLimit, func() bool { return len(e.fake.Calls("getUpdates")) > 0 }) {
			t.Fatal("never polled")
		}
		calls := e.fake.Calls("")
		var order []string
		for _, c := range calls {
			if c.Method == "deleteWebhook" || c.Method == "getUpdates" {
				order = append(order, c.Method)
			}
		}
		if order[0] != "deleteWebhook" {
			t.Errorf("calls %v: deleteWebhook must come first", order)
		}
		poll := e.fake.Calls("getUpdates")[0].Params
		if poll.Get("timeout") != "1" || poll.Get("allowed_updates") != `["message","callback_query","my_chat_member"]` {
			t.Errorf("getUpdates params %v", poll)
		}
	})
	t.Run("webhook mode sets the webhook with its secret", func(t *testing.T) {
		e := newEnv(t, envOptions{mode: ModeWebhook})
		if e.ch.Singleton() {
			t.Error("webhook mode may run on every instance")
		}
		if !e.fake.WaitFor(waitLimit, func() bool { return len(e.fake.Calls("setWebhook")) > 0 }) {
			t.Fatal("webhook never set")
		}
		p := e.fake.Calls("setWebhook")[0].Params
		if p.Get("url") != e.hookURL || p.Get("secret_token") != testSecret || p.Get("allowed_updates") != `["message","callback_query","my_chat_member"]` {
			t.Errorf("setWebhook params %v", p)
		}
		if n := len(e.fake.Calls("getUpdates")); n != 0 {
			t.Errorf("polled %d times in webhook mode", n)
		}
	})
}

func TestPollingSurvivesAConflict(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	e.fake.FailNext("getUpdates", telegramfake.Failure{Code: 409, Description: "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"})
	e.fake.FailNext("getUpdates", telegramfake.Failure{Code: 502, Description: "Bad Gateway"})
	done := make(chan error, 1)
	go func() { done <- e.ch.Run(e.ctx) }()
	q, m := e.ask(dbRequest(), team)
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "/answer "+q.ID+" 2"))
	if got := e.waitResolved(q.ID); got.Status != broker.StatusAnswered {
		t.Errorf("status %s", got.Status)
	}
	if w := e.sleep.recorded(); len(w) < 2 || w[1] <= w[0] {
		t.Errorf("backoff waits %v, want growing waits", w)
	}
	if !strings.Contains(e.logs.String(), "Conflict: terminated by other getUpdates request") {
		t.Error("the conflict was not logged")
	}
}

func TestPollingStopsOnRevokedToken(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	e.fake.FailNext("getUpdates", telegramfake.Failure{Code: 401, Description: "Unauthorized"})
	err := e.ch.Run(e.ctx)
	if err == nil || !strings.Contains(err.Error(), "Unauthorized") || strings.Contains(err.Error(), testToken) {
		t.Errorf("run returned %v", err)
	}
}

func TestWebhookDeliveredTwiceIsHandledOnce(t *testing.T) {
	e := newEnv(t, envOptions{mode: ModeWebhook})
	e.fake.WaitFor(waitLimit, func() bool { u, _ := e.fake.Webhook(); return u != "" })
	q, m := e.ask(dbRequest(), team)
	mine := e.fake.Send(ana, team.ID, "/pending", 0)
	e.waitReply(team.ID, mine)
	body := e.fake.UpdateJSON(map[string]any{"message": map[string]any{
		"message_id": 99, "date": 1, "text": "2",
		"from":             map[string]any{"id": 42, "is_bot": false, "first_name": "Ana"},
		"chat":             map[string]any{"id": team.ID, "type": "supergroup"},
		"reply_to_message": map[string]any{"message_id": m.ID, "date": 1, "chat": map[string]any{"id": team.ID, "type": "supergroup"}},
	}})
	for range 2 {
		if status := postUpdate(t, e.hookURL, testSecret, body); status != http.StatusOK {
			t.Errorf("status %d", status)
		}
	}
	if got := e.waitResolved(q.ID); got.Answers[q.Prompts[0].Question].Selected[0] != "SQLite" {
		t.Errorf("answers %+v", got.Answers)
	}
	replies := 0
	for _, b := range e.fake.BotMessages(team.ID) {
		if strings.HasPrefix(b.Text, "Recorded") || strings.HasPrefix(b.Text, "Already") {
			replies++
		}
	}
	if replies != 1 {
		t.Errorf("the redelivered update was handled %d times", replies)
	}
}

// TestOtherReplyAfterRestart: a restart forgets the reply boxes, but the
// box's own text still names the question. The Answer… box of a prompt
// without options records the reply; the Other or note… box of a prompt
// with options, whose reply waits for a tap, records nothing and says
// what to do (TestNoteLostInARestart).
func TestOtherReplyAfterRestart(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(&broker.AskRequest{Question: "Which database, if none of ours?"}, team)
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Answer…"]))
	msgs := e.fake.BotMessages(team.ID)
	prompt := msgs[len(msgs)-1]
	e.ch.others = newOtherPrompts() // a restart
	mine := e.fake.Send(ana, team.ID, "CockroachDB", prompt.ID)
	if r := e.waitReply(team.ID, mine); r.Text != "Recorded: “CockroachDB”" {
		t.Errorf("reply %q", r.Text)
	}
	if got := e.waitResolved(q.ID); got.Answers[q.Prompts[0].Question].CustomText != "CockroachDB" {
		t.Errorf("answers %+v", got.Answers)
	}
}

func TestRemindRepliesToTheQuestion(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	q, m := e.ask(dbRequest(), team)
	if err := e.b.Remind(e.ctx, q.ID); err != nil {
		t.Fatalf("remind: %v", err)
	}
	r := e.waitReply(team.ID, m.ID)
	if !strings.HasPrefix(r.Text, "⏰ Reminder: this question is still open and expires in ") {
		t.Errorf("reminder reads %q", r.Text)
	}
}

func TestUpdateThatChangesNothingSucceeds(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	q, m := e.ask(dbRequest(), team)
	q = e.get(q.ID)
	refs, err := e.st.Messages(e.ctx, q.ID)
	if err != nil || len(refs) != 1 {
		t.Fatalf("messages %v %v", refs, err)
	}
	for i := range 2 {
		if err := e.ch.Update(e.ctx, q, refs[0]); err != nil {
			t.Errorf("update %d: %v", i+1, err)
		}
	}
	if n := len(e.fake.Calls("editMessageText")); n != 2 {
		t.Errorf("%d edits", n)
	}
	if now, _ := e.fake.Message(team.ID, m.ID); now.Edits != 0 || now.Text != m.Text {
		t.Errorf("the message changed: %q", now.Text)
	}
}

func TestAddingTheBotLogsTheChatID(t *testing.T) {
	e := newEnv(t, envOptions{})
	e.fake.AddBot(ana, telegramfake.Chat{ID: -1002223334445, Type: "supergroup", Title: "Ops"})
	if !e.fake.WaitFor(waitLimit, func() bool {
		return strings.Contains(e.logs.String(), `msg="bot membership changed" channel=telegram chat=-1002223334445 chat_type=supergroup chat_title=Ops status=member`)
	}) {
		t.Errorf("the new chat's id was not logged:\n%s", e.logs.String())
	}
}
