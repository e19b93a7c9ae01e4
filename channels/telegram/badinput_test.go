package telegram

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

func TestRefusedInputChangesNothing(t *testing.T) {
	tests := []struct {
		name       string
		responders []string
		// act does the bad thing and returns what the person was told
		// ("" when the bot must stay silent).
		act  func(e *env, q *broker.Question, m telegramfake.Message) string
		want string
	}{
		{
			name: "reply to a message that is no question",
			act: func(e *env, q *broker.Question, m telegramfake.Message) string {
				chatter := e.fake.Send(bob, team.ID, "lunch at noon?", 0)
				e.fake.Send(ana, team.ID, "2", chatter)
				return ""
			},
		},
		{
			name: "answer with an unknown id",
			act: func(e *env, q *broker.Question, m telegramfake.Message) string {
				return e.waitReply(team.ID, e.fake.Send(ana, team.ID, "/answer zzzzzz 1", 0)).Text
			},
			want: "There is no question zzzzzz here.",
		},
		{
			name: "choice out of range",
			act: func(e *env, q *broker.Question, m telegramfake.Message) string {
				return e.waitReply(team.ID, e.fake.Send(ana, team.ID, "/answer "+q.ID+" 7", 0)).Text
			},
			want: "7 is not an option here: choose 1–2",
		},
		{
			name: "answer from another chat",
			act: func(e *env, q *broker.Question, m telegramfake.Message) string {
				return e.waitReply(outside.ID, e.fake.Send(ana, outside.ID, "/answer@askbridge_bot "+q.ID+" 1", 0)).Text
			},
			want: "There is no question {id} here.",
		},
		{
			name:       "tap by someone not asked",
			responders: []string{"telegram:42"},
			act: func(e *env, q *broker.Question, m telegramfake.Message) string {
				got := e.waitCallback(e.fake.Tap(bob, team.ID, m.ID, buttons(m)["2. SQLite"]))
				if !got.ShowAlert {
					t.Errorf("a refusal should be an alert")
				}
				return got.Text
			},
			want: "You are not one of the people asked to answer {id}; nothing was recorded.",
		},
		{
			name: "forged button data",
			act: func(e *env, q *broker.Question, m telegramfake.Message) string {
				return e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, "x:"+q.ID)).Text
			},
			want: "This button is not from a current question.",
		},
		{
			name: "command for another bot",
			act: func(e *env, q *broker.Question, m telegramfake.Message) string {
				e.fake.Send(ana, team.ID, "/answer@other_bot "+q.ID+" 1", 0)
				return ""
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{responders: tt.responders})
			q, m := e.ask(dbRequest(), team)
			told := tt.act(e, q, m)
			if want := strings.ReplaceAll(tt.want, "{id}", q.ID); told != want {
				t.Errorf("told %q, want %q", told, want)
			}
			// A later valid answer is processed after the bad input, so
			// once it is recorded the bad input has been handled too.
			last := e.fake.Send(ana, team.ID, "/pending", 0)
			e.waitReply(team.ID, last)
			if tt.want == "" {
				for _, b := range e.fake.BotMessages(team.ID) {
					if b.ID != m.ID && b.ReplyTo != last {
						t.Errorf("the bot said something: %q", b.Text)
					}
				}
			}
			if got := e.get(q.ID); got.Status != broker.StatusPending {
				t.Errorf("question is %s after bad input", got.Status)
			}
			if now, _ := e.fake.Message(team.ID, m.ID); now.Edits != 0 {
				t.Errorf("question message was edited: %q", now.Text)
			}
		})
	}
}

func TestForgedWebhookIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{mode: ModeWebhook})
	if !e.fake.WaitFor(waitLimit, func() bool { u, _ := e.fake.Webhook(); return u != "" }) {
		t.Fatal("webhook never set")
	}
	q, m := e.ask(dbRequest(), team)
	body := e.fake.UpdateJSON(map[string]any{"callback_query": map[string]any{
		"id": "forged1", "chat_instance": "1", "data": "/answer " + q.ID + " 1",
		"from":    map[string]any{"id": 42, "is_bot": false, "first_name": "Ana", "username": "ana"},
		"message": map[string]any{"message_id": m.ID, "date": 1, "chat": map[string]any{"id": team.ID, "type": "supergroup"}},
	}})
	for _, secret := range []string{"", "wrong", testSecret + "x", strings.ToUpper(testSecret)} {
		t.Run("secret "+secret, func(t *testing.T) {
			if status := postUpdate(t, e.hookURL, secret, body); status != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", status)
			}
		})
	}
	if got := e.get(q.ID); got.Status != broker.StatusPending {
		t.Fatalf("a forged update was processed: %s", got.Status)
	}
	if n := len(e.fake.Calls("answerCallbackQuery")); n != 0 {
		t.Errorf("the bot answered %d forged taps", n)
	}
	// The real thing, delivered by Telegram with the secret, works.
	cb := e.fake.Tap(ana, team.ID, m.ID, "/answer "+q.ID+" 1")
	if got := e.waitCallback(cb); got.Text != "Recorded: Postgres" {
		t.Errorf("toast %q", got.Text)
	}
	if st := e.fake.WebhookStatuses(); len(st) != 1 || st[0] != http.StatusOK {
		t.Errorf("webhook answered Telegram with %v", st)
	}
	e.waitResolved(q.ID)
}

func TestHTMLIsEscaped(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	q, m := e.ask(&broker.AskRequest{
		Question: `Drop <table> "users" & <b>all</b>?`,
		Header:   "<i>Danger</i>",
		Options: []broker.Option{
			{Label: "Yes <script>", Description: "a & b </b>"},
			{Label: "No &amp; never"},
		},
		Context: "</i><a href=\"https://evil.example\">click</a>",
	}, team)
	for _, want := range []string{
		"Drop &lt;table&gt; \"users\" &amp; &lt;b&gt;all&lt;/b&gt;?",
		"🏷 <b>&lt;i&gt;Danger&lt;/i&gt;</b>",
		"<b>Yes &lt;script&gt;</b> — a &amp; b &lt;/b&gt;",
		"<b>No &amp;amp; never</b>",
		"<i>&lt;/i&gt;&lt;a href=\"https://evil.example\"&gt;click&lt;/a&gt;</i>",
	} {
		if !strings.Contains(m.HTML, want) {
			t.Errorf("sent HTML lacks %q:\n%s", want, m.HTML)
		}
	}
	for _, want := range []string{`Drop <table> "users" & <b>all</b>?`, "Yes <script> — a & b </b>", "No &amp; never"} {
		if !strings.Contains(m.Text, want) {
			t.Errorf("people do not see %q:\n%s", want, m.Text)
		}
	}
	for _, ent := range m.Entities {
		if ent.Type == "text_link" {
			t.Errorf("agent text became a link: %+v", ent)
		}
	}
	if b := buttons(m); b["1. Yes <script>"] != stepData(broker.StepOption, q.Ref(0), 0) {
		t.Errorf("buttons %v", b)
	}
}

func TestOverlongCallbackDataIsNeverSent(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	now := time.Now()
	q := &broker.Question{
		ID:        strings.Repeat("k", 60), // "/answer <id> 1" is 70 bytes
		Prompts:   []broker.Prompt{{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}}},
		Status:    broker.StatusPending,
		CreatedAt: now, ExpiresAt: now.Add(time.Hour),
	}
	if n := len(broker.FormatOption(q.Ref(0), 0)); n != 70 {
		t.Fatalf("candidate is %d bytes", n)
	}
	ref, err := e.ch.Post(e.ctx, q, chatID(team))
	if err != nil {
		t.Fatalf("post: %v", err)
	}
	m := e.fake.BotMessages(team.ID)[0]
	if ref.MessageID == "" {
		t.Fatal("no message id")
	}
	for text, data := range buttons(m) {
		if len(data) > 64 {
			t.Errorf("button %q sent with %d bytes of data", text, len(data))
		}
		if strings.HasPrefix(data, "/answer") || strings.HasPrefix(data, "/decline") {
			t.Errorf("button %q carries a command that does not fit: %q", text, data)
		}
	}
	for _, cmd := range []string{"/answer " + q.ID + " 1", "/answer " + q.ID + " 2", "/decline " + q.ID} {
		if !strings.Contains(m.Text, cmd) {
			t.Errorf("the text does not show the typed command %q:\n%s", cmd, m.Text)
		}
	}
	if !strings.Contains(e.logs.String(), "callback data is longer than Telegram allows") {
		t.Errorf("the left-out button was not logged")
	}
}

// TestRateLimitIsWaitedOut: a call made directly, not by the outbox
// (answering a button tap), waits out a 429 as Telegram asks and sends
// again, a bounded number of times.
func TestRateLimitIsWaitedOut(t *testing.T) {
	e := newEnv(t, envOptions{})
	_, m := e.ask(dbRequest(), team)
	e.fake.FailNext("answerCallbackQuery", telegramfake.TooManyRequests(3))
	got := e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["2. SQLite"]))
	if got.Text != "Recorded: SQLite" {
		t.Errorf("the tap was answered %q", got.Text)
	}
	if waits := e.sleep.recorded(); len(waits) != 1 || waits[0] != 3*time.Second {
		t.Errorf("waited %v, want [3s] as retry_after said", waits)
	}
	if n := len(e.fake.Calls("answerCallbackQuery")); n != 2 {
		t.Errorf("%d answerCallbackQuery calls, want 2", n)
	}

	// Bounded: a flood that does not end fails the call, not permanently.
	for range maxRetries + 1 {
		e.fake.FailNext("answerCallbackQuery", telegramfake.TooManyRequests(1))
	}
	err := e.ch.request(e.ctx, "answer callback", tgbotapi.NewCallback("1", ""))
	if err == nil || errors.Is(err, broker.ErrPermanent) || !strings.Contains(err.Error(), "Too Many Requests: retry after 1") {
		t.Errorf("endless 429: %v", err)
	}
}

func TestPermanentFailures(t *testing.T) {
	tests := []struct {
		name  string
		chat  string
		setup func(f *telegramfake.Server)
		want  string
	}{
		{"bot blocked by the user", chatID(anaDM), func(f *telegramfake.Server) { f.Block(anaDM.ID) }, "Forbidden: bot was blocked by the user"},
		{"chat not found", "-100555", nil, "Bad Request: chat not found"},
		{"not a chat id", "@team", nil, `chat "@team" is not a numeric chat id`},
		{"token revoked", chatID(team), func(f *telegramfake.Server) {
			f.FailNext("sendMessage", telegramfake.Failure{Code: 401, Description: "Unauthorized"})
		}, "Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{noRun: true})
			q, _ := e.ask(dbRequest(), team)
			if tt.setup != nil {
				tt.setup(e.fake)
			}
			_, err := e.ch.Post(e.ctx, q, tt.chat)
			if !errors.Is(err, broker.ErrPermanent) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a permanent %q", err, tt.want)
			}
			if strings.Contains(err.Error(), testToken) {
				t.Errorf("the token leaked: %v", err)
			}
		})
	}
}

func TestTokenNeverLeaks(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	q, _ := e.ask(dbRequest(), team)
	e.fake.Close() // the API is gone: transport errors carry the URL
	_, err := e.ch.Post(e.ctx, q, chatID(team))
	if err == nil {
		t.Fatal("post to a closed server succeeded")
	}
	if strings.Contains(err.Error(), testToken) || !strings.Contains(err.Error(), "<token>") {
		t.Errorf("error not redacted: %v", err)
	}
	if errors.Is(err, broker.ErrPermanent) {
		t.Errorf("a network failure is not permanent: %v", err)
	}
}

// An update's command entity may carry any length: none (0), or one past
// the text. The command is read from the text, so such an update neither
// breaks the webhook nor loses the answer it carries.
func TestCommandEntityLengthsAreNotTrusted(t *testing.T) {
	for _, length := range []int{0, 1, 500} {
		t.Run(strconv.Itoa(length), func(t *testing.T) {
			e := newEnv(t, envOptions{mode: ModeWebhook})
			if !e.fake.WaitFor(waitLimit, func() bool { u, _ := e.fake.Webhook(); return u != "" }) {
				t.Fatal("webhook never set")
			}
			q, _ := e.ask(dbRequest(), team)
			body := e.fake.UpdateJSON(map[string]any{"message": map[string]any{
				"message_id": 9001, "date": 1767225600, "text": "/answer " + q.ID + " 2",
				"from":     map[string]any{"id": 42, "is_bot": false, "first_name": "Ana", "username": "ana"},
				"chat":     map[string]any{"id": team.ID, "type": "supergroup", "title": "Team"},
				"entities": []map[string]any{{"type": "bot_command", "offset": 0, "length": length}},
			}})
			if status := postUpdate(t, e.hookURL, testSecret, body); status != http.StatusOK {
				t.Fatalf("webhook answered %d, want 200", status)
			}
			got := e.waitResolved(q.ID)
			if got.Status != broker.StatusAnswered || got.AnsweredBy == nil || got.AnsweredBy.User != "42" {
				t.Fatalf("question %s answered by %+v, want answered by Ana (42)", got.Status, got.AnsweredBy)
			}
		})
	}
}
