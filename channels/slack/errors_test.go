package slack

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

func TestPostClassifiesSlackErrors(t *testing.T) {
	tests := []struct {
		code      string
		permanent bool
	}{
		{"channel_not_found", true},
		{"not_in_channel", true},
		{"is_archived", true},
		{"account_inactive", true},
		{"invalid_auth", true},
		{"fatal_error", false},
		{"internal_error", false},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			e := newEnv(t, ModeSocket, &brokertest.Inbox{})
			e.fake.FailChannel(general, tt.code)
			_, err := e.ch.Post(context.Background(), sampleQuestion(), general)
			if err == nil {
				t.Fatal("Post succeeded")
			}
			if got := errors.Is(err, broker.ErrPermanent); got != tt.permanent {
				t.Errorf("permanent = %v, want %v (err %v)", got, tt.permanent, err)
			}
			if !strings.Contains(err.Error(), tt.code) || !strings.Contains(err.Error(), general) {
				t.Errorf("error %q does not name the code and the chat", err)
			}
			if len(e.fake.Messages()) != 0 {
				t.Errorf("a message was stored")
			}
		})
	}
	t.Run("refused token", func(t *testing.T) {
		e := newEnv(t, ModeSocket, &brokertest.Inbox{})
		t.Setenv("TEST_SLACK_BOT", "xoxb-revoked-token-123")
		c, err := New(e.ch.cfg, &brokertest.Inbox{}, channels.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Post(context.Background(), sampleQuestion(), general)
		if !errors.Is(err, broker.ErrPermanent) || strings.Contains(err.Error(), "xoxb-revoked") {
			t.Errorf("err = %v, want permanent invalid_auth without the token", err)
		}
	})
}

// TestOutboxCallsReturnRetryAfter: the calls the outbox makes (post,
// edit, remind) are made once; a 429 comes back with its Retry-After for
// the outbox to pace, and the channel does not send again itself.
func TestOutboxCallsReturnRetryAfter(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{})
	q := sampleQuestion()
	ref, err := e.ch.Post(context.Background(), q, general)
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	tests := []struct {
		name, method string
		call         func() error
	}{
		{"post", "chat.postMessage", func() error { _, err := e.ch.Post(context.Background(), q, general); return err }},
		{"update", "chat.update", func() error { return e.ch.Update(context.Background(), resolved(q), ref) }},
		{"remind", "chat.postMessage", func() error { return e.ch.Remind(context.Background(), q, ref) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, msgs := e.fake.Calls(tt.method), len(e.fake.Messages())
			e.fake.RateLimit(tt.method, 1, 2)
			err := tt.call()
			if d, ok := broker.RetryAfterOf(err); !ok || d != 2*time.Second || !errors.Is(err, broker.ErrRateLimited) {
				t.Errorf("err = %v (retry after %s, %v), want rate limited for 2s", err, d, ok)
			}
			if errors.Is(err, broker.ErrPermanent) {
				t.Errorf("err = %v, want a transient 429", err)
			}
			if n := e.fake.Calls(tt.method) - before; n != 1 {
				t.Errorf("%s called %d times, want 1: the outbox sends again, not the channel", tt.method, n)
			}
			if n := len(e.fake.Messages()) - msgs; n != 0 {
				t.Errorf("%d messages posted, want none", n)
			}
		})
	}
	t.Run("direct calls wait it out", func(t *testing.T) {
		e.fake.RateLimit("chat.postEphemeral", 1, 1)
		before := e.fake.Calls("chat.postEphemeral")
		e.ch.tell(context.Background(), replyTo{chat: general, user: ana.ID}, "Recorded: SQLite")
		waitEphemeral(t, e.fake, ana.ID, "Recorded: SQLite")
		if n := e.fake.Calls("chat.postEphemeral") - before; n != 2 {
			t.Errorf("chat.postEphemeral called %d times, want 2 (429 then success)", n)
		}
	})
}

func TestTokensNeverLogged(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{Reply: func(broker.Inbound) broker.Reply {
		return broker.Reply{Text: "There is no question zzzzzz here."}
	}})
	e.run(t)
	m := postOne(t, e, sampleQuestion(), general)
	b, _ := m.Button("SQLite")
	e.send(t, "interactive", slackfake.ClickButton(m, ana, b))
	waitEphemeral(t, e.fake, ana.ID, "There is no question")
	e.fake.FailChannel(random, "channel_not_found")
	_, _ = e.ch.Post(context.Background(), sampleQuestion(), random)
	e.ch.drain()
	logs := e.logs.String()
	if logs == "" {
		t.Fatal("no logs captured")
	}
	for _, secret := range []string{slackfake.BotToken, slackfake.AppToken, testSecret} {
		if strings.Contains(logs, secret) {
			t.Errorf("a secret appears in the logs:\n%s", logs)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"socket ok", Config{BotTokenEnv: "B", AppTokenEnv: "A"}, ""},
		{"http ok", Config{BotTokenEnv: "B", SigningSecretEnv: "S", Mode: "http", APIURL: "http://127.0.0.1:9/api/"}, ""},
		{"no bot token", Config{AppTokenEnv: "A"}, "slack.bot_token_env"},
		{"socket without app token", Config{BotTokenEnv: "B"}, "slack.app_token_env"},
		{"http without secret", Config{BotTokenEnv: "B", Mode: "http"}, "slack.signing_secret_env"},
		{"unknown mode", Config{BotTokenEnv: "B", AppTokenEnv: "A", Mode: "rtm"}, `slack.mode: "rtm"`},
		{"bad url", Config{BotTokenEnv: "B", AppTokenEnv: "A", APIURL: "slack.com/api"}, "slack.api_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.want == "" {
				if err != nil {
					t.Errorf("Validate = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an error naming %s", err, tt.want)
			}
		})
	}
	t.Run("empty variable is named, not read out", func(t *testing.T) {
		t.Setenv("EMPTY_SLACK_BOT", "")
		_, err := New(Config{BotTokenEnv: "EMPTY_SLACK_BOT", AppTokenEnv: "A"}, &brokertest.Inbox{}, channels.Options{})
		if err == nil || !strings.Contains(err.Error(), "EMPTY_SLACK_BOT") {
			t.Errorf("New = %v, want an error naming EMPTY_SLACK_BOT", err)
		}
	})
}

func TestUpdateOfAMissingMessageIsPermanent(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{})
	err := e.ch.Update(context.Background(), resolved(sampleQuestion()), broker.MessageRef{Channel: "slack", Chat: general, MessageID: "1700000000.999999"})
	if !errors.Is(err, broker.ErrPermanent) || !strings.Contains(err.Error(), "message_not_found") {
		t.Errorf("Update = %v, want permanent message_not_found", err)
	}
}

func TestEscapeLimit(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"a<b", 10, "a&lt;b"},
		{"a<b", 5, "a…"}, // "&lt;" does not fit whole: never cut inside it
		{"<<<<", 9, "&lt;&lt;…"},
		{"héllo wörld", 6, "héllo…"},
		{"x & y", 9, "x &amp; y"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := escapeLimit(tt.in, tt.n); got != tt.want {
				t.Errorf("escapeLimit(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
			}
		})
	}
}
