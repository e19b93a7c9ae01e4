package telegram

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
	"github.com/askbridge/askbridge/internal/testutil"
)

const (
	testToken  = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	tokenEnv   = "ASKBRIDGE_TEST_TELEGRAM_TOKEN"
	waitLimit  = channeltest.WaitLimit
	secretEnv  = "ASKBRIDGE_TEST_TELEGRAM_SECRET"
	testSecret = "s3cret_Token-1_webhook"
)

var (
	botUser = telegramfake.User{ID: 777000111, FirstName: "Ask Bridge", Username: "askbridge_bot"}
	ana     = telegramfake.User{ID: 42, FirstName: "Ana", Username: "ana"}
	bob     = telegramfake.User{ID: 43, FirstName: "Bob"}
	team    = telegramfake.Chat{ID: -1001234567890, Type: "supergroup", Title: "Team"}
	outside = telegramfake.Chat{ID: -1009999999999, Type: "supergroup", Title: "Elsewhere"}
	ops     = telegramfake.Chat{ID: -1005555555555, Type: "supergroup", Title: "Ops"}
	anaDM   = telegramfake.Chat{ID: 42, Type: "private", FirstName: "Ana", Username: "ana"}
)

func chatID(c telegramfake.Chat) string { return strconv.FormatInt(c.ID, 10) }

// sleeper records the waits the channel asks for instead of sleeping.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) recorded() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

// env is a bridge with the real broker, a SQLite store and the Telegram
// channel against the fake Bot API.
type env struct {
	t     *testing.T
	ctx   context.Context
	fake  *telegramfake.Server
	ch    *Channel
	b     *broker.Broker
	st    broker.Store
	logs  *testutil.Buffer
	sleep *sleeper
	// hookURL is where the webhook is served in webhook mode.
	hookURL string
}

type envOptions struct {
	mode       string // "" polling, "webhook"
	responders []string
	noRun      bool
	// people links Ana's and Bob's accounts to people, as the route with
	// team policies needs (answers then name the person).
	people bool
	// locale is the channel's (channels.telegram.locale); anaLocale is
	// Ana's own, which links the people and gives the channel the
	// broker's languages.
	locale, anaLocale string
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	people, err := broker.NewPeople([]broker.Person{
		{ID: "ana", Name: "Ana", Accounts: []string{"telegram:42"}, Locale: o.anaLocale},
		{ID: "bob", Name: "Bob", Accounts: []string{"telegram:43"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fake := telegramfake.New(testToken, botUser)
	t.Cleanup(fake.Close)
	for _, c := range []telegramfake.Chat{team, outside, anaDM, ops} {
		fake.AddChat(c)
	}
	br := channeltest.NewBridge(t, map[string]broker.Route{
		"default": {Targets: []broker.Target{{Channel: Name, Chat: chatID(team)}}, Responders: o.responders},
		"dm":      {Targets: []broker.Target{{Channel: Name, Chat: chatID(anaDM)}}},
		"prod":    prodRoute,
		"two":     {Targets: []broker.Target{{Channel: Name, Chat: chatID(team)}, {Channel: Name, Chat: chatID(ops)}}},
	}, func(c *broker.Config) {
		if o.people || o.anaLocale != "" {
			c.People = people
		}
	})
	t.Setenv(tokenEnv, testToken)
	cfg := Config{TokenEnv: tokenEnv, APIURL: fake.URL(), PollTimeout: time.Second, Language: channels.Language{Locale: o.locale}}
	var hook atomic.Value // http.Handler, set once the channel exists
	var hookURL string
	if o.mode == ModeWebhook {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hook.Load().(http.Handler).ServeHTTP(w, r)
		}))
		t.Cleanup(srv.Close)
		hookURL = srv.URL + "/telegram"
		t.Setenv(secretEnv, testSecret)
		cfg.Mode, cfg.WebhookURL, cfg.WebhookSecretEnv = ModeWebhook, hookURL, secretEnv
	}
	opts := channels.Options{Logger: br.Logger}
	if o.anaLocale != "" {
		opts.Languages = br.Broker.Languages()
	}
	ch, err := New(cfg, br, opts)
	if err != nil {
		t.Fatalf("new channel: %v", err)
	}
	hook.Store(ch.Handler())
	sl := &sleeper{}
	ch.sleep = sl.sleep
	if o.noRun {
		br.Register(ch)
	} else {
		br.Start(ch)
		if o.mode == ModeWebhook {
			// Run learns who the bot is and then sets the webhook; an
			// update sent before that would wait in getUpdates, which
			// nobody reads in webhook mode.
			if !fake.WaitFor(waitLimit, func() bool { u, _ := fake.Webhook(); return u != "" }) {
				t.Fatalf("the channel never set its webhook")
			}
		}
	}
	t.Cleanup(func() {
		if strings.Contains(br.Logs.String(), testToken) {
			t.Errorf("the bot token appears in the logs")
		}
	})
	return &env{t: t, ctx: br.Ctx, fake: fake, ch: ch, b: br.Broker, st: br.Store, logs: br.Logs, sleep: sl, hookURL: hookURL}
}

// ask asks a question as agent "agent" and returns it with the message
// the bot posted for it.
func (e *env) ask(req *broker.AskRequest, chat telegramfake.Chat) (*broker.Question, telegramfake.Message) {
	e.t.Helper()
	before := len(e.questionMessages(chat.ID))
	q, _, err := e.b.Ask(e.ctx, "agent", req)
	if err != nil {
		e.t.Fatalf("ask: %v", err)
	}
	if q.Status != broker.StatusPending {
		e.t.Fatalf("question is %s, not pending: %s", q.Status, q.Reason)
	}
	// The post may end after the ask returns (its grace ran out); the
	// test acts on the copy once the bridge has recorded it.
	ref := channeltest.WaitCopy(e.t, e.st, q.ID, broker.Target{Channel: Name, Chat: chatID(chat)})
	msgs := e.questionMessages(chat.ID)
	if len(msgs) != before+1 {
		e.t.Fatalf("the bot sent %d messages to %s, want 1", len(msgs)-before, chat.Title)
	}
	if last := msgs[len(msgs)-1]; strconv.Itoa(last.ID) != ref.MessageID {
		e.t.Fatalf("the copy recorded is message %s, want the one the bot sent, %d", ref.MessageID, last.ID)
	}
	return q, msgs[len(msgs)-1]
}

// questionMessages returns the bot's messages in chat that reply to
// nothing (the replies under a question are left out), oldest first.
func (e *env) questionMessages(chat int64) []telegramfake.Message {
	var out []telegramfake.Message
	for _, m := range e.fake.BotMessages(chat) {
		if m.ReplyTo == 0 {
			out = append(out, m)
		}
	}
	return out
}

// waitMessage waits until the message satisfies cond and returns it.
func (e *env) waitMessage(chat int64, id int, what string, cond func(telegramfake.Message) bool) telegramfake.Message {
	e.t.Helper()
	var m telegramfake.Message
	ok := e.fake.WaitFor(waitLimit, func() bool {
		var found bool
		m, found = e.fake.Message(chat, id)
		return found && cond(m)
	})
	if !ok {
		e.t.Fatalf("message %d never %s; it reads:\n%s\nkeyboard: %v", id, what, m.Text, m.Keyboard)
	}
	return m
}

// waitCallback waits until the bot answered the tap and returns the toast.
func (e *env) waitCallback(id string) telegramfake.CallbackAnswer {
	e.t.Helper()
	if !e.fake.WaitFor(waitLimit, func() bool { return e.fake.Callback(id).Answered }) {
		e.t.Fatalf("the bot never answered callback query %s", id)
	}
	return e.fake.Callback(id)
}

// waitReply waits for the bot's reply to a person's message.
func (e *env) waitReply(chat int64, to int) telegramfake.Message {
	e.t.Helper()
	var reply telegramfake.Message
	ok := e.fake.WaitFor(waitLimit, func() bool {
		for _, m := range e.fake.BotMessages(chat) {
			if m.ReplyTo == to {
				reply = m
				return true
			}
		}
		return false
	})
	if !ok {
		e.t.Fatalf("the bot never replied to message %d", to)
	}
	return reply
}

// waitResolved blocks on the broker like an agent would.
func (e *env) waitResolved(id string) *broker.Question {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, waitLimit)
	defer cancel()
	q, err := e.b.Wait(ctx, "agent", id)
	if err != nil {
		e.t.Fatalf("wait: %v", err)
	}
	if !q.Status.Terminal() {
		e.t.Fatalf("question %s still %s", id, q.Status)
	}
	return q
}

func (e *env) get(id string) *broker.Question {
	e.t.Helper()
	q, err := e.b.Get(e.ctx, "agent", id)
	if err != nil {
		e.t.Fatalf("get: %v", err)
	}
	return q
}

// buttons lists the callback data of a keyboard by button text.
func buttons(m telegramfake.Message) map[string]string {
	out := map[string]string{}
	for _, row := range m.Keyboard {
		for _, b := range row {
			out[b.Text] = b.CallbackData
		}
	}
	return out
}

// regionsRequest is a multi-select question of three options.
func regionsRequest() *broker.AskRequest {
	return &broker.AskRequest{
		Question:    "Which regions?",
		Options:     []broker.Option{{Label: "Europe"}, {Label: "Americas"}, {Label: "Asia"}},
		MultiSelect: true,
	}
}

// withRoute sets req's route and returns req.
func withRoute(req *broker.AskRequest, route string) *broker.AskRequest {
	req.Route = route
	return req
}

func dbRequest() *broker.AskRequest {
	return &broker.AskRequest{
		Question: "Which database should we use?",
		Header:   "Database",
		Options: []broker.Option{
			{Label: "Postgres (Recommended)", Description: "Mature, relational"},
			{Label: "SQLite", Description: "Embedded, zero setup"},
		},
		Context: "We are choosing storage for the job queue.",
	}
}

// stepData is the callback data of a button that takes step kind on
// prompt ref with options (0-based).
func stepData(kind broker.StepKind, ref broker.PromptRef, options ...int) string {
	return broker.EncodeStep(broker.Step{Kind: kind, Ref: ref, Options: options})
}
