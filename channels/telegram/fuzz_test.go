package telegram

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// FuzzWebhookUpdate feeds arbitrary bodies to the webhook handler, the
// function that turns a raw Telegram update into broker input. Whatever
// the body, the handler must not panic, must answer 200 (handled or
// ignored) or 400 (not an update), and every Inbound it produces must name
// this channel, a chat and a user.
func FuzzWebhookUpdate(f *testing.F) {
	fake := telegramfake.New(testToken, botUser)
	defer fake.Close()
	for _, c := range []telegramfake.Chat{team, anaDM} {
		fake.AddChat(c)
	}
	f.Setenv(tokenEnv, testToken)
	f.Setenv(secretEnv, testSecret)
	h := &brokertest.Inbox{Reply: func(in broker.Inbound) broker.Reply {
		if !strings.HasPrefix(in.Text, "/") {
			return broker.Reply{Ignored: true}
		}
		return broker.Reply{OK: true, Text: "Recorded: Postgres"}
	}}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ch, err := New(Config{TokenEnv: tokenEnv, APIURL: fake.URL(), Mode: ModeWebhook,
		WebhookURL: "https://bridge.example/telegram", WebhookSecretEnv: secretEnv}, h, channels.Options{Logger: log})
	if err != nil {
		f.Fatalf("new channel: %v", err)
	}
	ch.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() }
	hook := ch.Handler()

	for _, seed := range fuzzSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req := httptest.NewRequest(http.MethodPost, "/telegram", bytes.NewReader(body))
		req.Header.Set(SecretHeader, testSecret)
		rec := httptest.NewRecorder()
		hook.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK:
		case http.StatusBadRequest:
			if !strings.Contains(rec.Body.String(), "bad update") {
				t.Errorf("400 without saying why: %q", rec.Body.String())
			}
		default:
			t.Errorf("status %d for %q", rec.Code, body)
		}
		for _, in := range h.Take() {
			if in.Channel != Name || in.Chat == "" || in.User == "" {
				t.Errorf("inbound %+v lacks its channel, chat or user", in)
			}
			if !utf8.ValidString(in.Text) && utf8.Valid(body) {
				t.Errorf("valid UTF-8 update produced invalid text %q", in.Text)
			}
		}
	})
}

// fuzzSeeds are real update shapes: a command, a reply, button taps
// (steps, and the formats of the release before them), a toggle, a
// private bare digit, membership changes and broken bodies.
var fuzzSeeds = []string{
	`{"update_id":100001,"message":{"message_id":5,"from":{"id":42,"is_bot":false,"first_name":"Ana","username":"ana"},"chat":{"id":-1001234567890,"type":"supergroup","title":"Team"},"date":1767225600,"text":"/answer k7m2qx 2","entities":[{"type":"bot_command","offset":0,"length":7}]}}`,
	`{"update_id":100002,"message":{"message_id":6,"from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat":{"id":-1001234567890,"type":"supergroup","title":"Team"},"date":1767225600,"text":"2","reply_to_message":{"message_id":3,"from":{"id":777000111,"is_bot":true,"first_name":"Ask Bridge","username":"askbridge_bot"},"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500,"text":"Which database?"}}}`,
	`{"update_id":100003,"callback_query":{"id":"4382bfdwdsb323b2d1","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1001234567890","data":"/answer k7m2qx 1","message":{"message_id":3,"from":{"id":777000111,"is_bot":true,"first_name":"Ask Bridge"},"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500,"text":"Which database?"}}}`,
	`{"update_id":100004,"callback_query":{"id":"4382bfdwdsb323b2d2","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"/toggle k7m2qx 3","message":{"message_id":3,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500}}}`,
	`{"update_id":100005,"callback_query":{"id":"4382bfdwdsb323b2d3","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"/answer k7m2qx 1"}}`,
	`{"update_id":100006,"callback_query":{"id":"4382bfdwdsb323b2d4","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"a:k7m2qx:0:1:13","message":{"message_id":3,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500}}}`,
	`{"update_id":100007,"callback_query":{"id":"4382bfdwdsb323b2d5","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"n:k7m2qx:0","message":{"message_id":3,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500}}}`,
	`{"update_id":100008,"callback_query":{"id":"4382bfdwdsb323b2d6","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"x:k7m2qx:0","message":{"message_id":3,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500}}}`,
	`{"update_id":100011,"callback_query":{"id":"4382bfdwdsb323b2e1","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"1o:k7m2qx.1/1:2","message":{"message_id":3,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500}}}`,
	`{"update_id":100012,"callback_query":{"id":"4382bfdwdsb323b2e2","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"1a:k7m2qx.2/4:1234","message":{"message_id":3,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500}}}`,
	`{"update_id":100013,"callback_query":{"id":"4382bfdwdsb323b2e3","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"1d:k7m2qx.1/1","message":{"message_id":3,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500}}}`,
	`{"update_id":100014,"callback_query":{"id":"4382bfdwdsb323b2e4","from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat_instance":"-1","data":"1x:k7m2qx.1/1","message":{"message_id":3,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225500}}}`,
	`{"update_id":100006,"message":{"message_id":7,"from":{"id":42,"is_bot":false,"first_name":"Ana"},"chat":{"id":42,"type":"private","first_name":"Ana"},"date":1767225600,"text":"2"}}`,
	`{"update_id":100007,"my_chat_member":{"chat":{"id":-100555,"type":"group","title":"New"},"from":{"id":42,"is_bot":false,"first_name":"Ana"},"date":1767225600,"old_chat_member":{"user":{"id":777000111,"is_bot":true,"first_name":"Ask Bridge"},"status":"left"},"new_chat_member":{"user":{"id":777000111,"is_bot":true,"first_name":"Ask Bridge"},"status":"member"}}}`,
	`{"update_id":100008,"message":{"message_id":8,"chat":{"id":-1001234567890,"type":"supergroup"},"date":1767225600,"text":"/answer k7m2qx 2"}}`,
	`{"update_id":100009,"edited_message":{"message_id":8,"chat":{"id":1,"type":"private"},"date":1}}`,
	`{"update_id":"x"}`,
	`{}`,
	`[]`,
	`null`,
	``,
}
