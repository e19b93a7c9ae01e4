package slack

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// Kinds of fuzzed request body.
const (
	fuzzInteraction = iota // form body payload=<JSON>
	fuzzEvent              // Events API JSON
	fuzzForm               // a raw form body (slash commands)
)

// signedRequest is a request Slack would send, with a valid v0 signature.
func signedRequest(kind uint8, data []byte) *http.Request {
	body, ct := string(data), "application/x-www-form-urlencoded"
	switch kind % 3 {
	case fuzzInteraction:
		body = url.Values{"payload": {string(data)}}.Encode()
	case fuzzEvent:
		ct = "application/json"
	}
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(testSecret))
	mac.Write([]byte("v0:" + ts + ":" + body))
	req := httptest.NewRequest(http.MethodPost, "/slack/events", strings.NewReader(body))
	req.Header.Set("Content-Type", ct)
	req.Header.Set("X-Slack-Request-Timestamp", ts)
	req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
	return req
}

// FuzzHTTPPayload feeds arbitrary signed interaction payloads, Events API
// bodies and slash-command forms to the HTTP handler, the code that turns
// Slack's raw JSON into broker input. Whatever the body, the handler must
// not panic, must answer 200 or a 400 that says what is wrong, and every
// Inbound must name this channel, a chat and a user.
func FuzzHTTPPayload(f *testing.F) {
	fake := slackfake.New(f)
	fake.AddUser(ana)
	f.Setenv("TEST_SLACK_BOT", slackfake.BotToken)
	f.Setenv("TEST_SLACK_APP", slackfake.AppToken)
	f.Setenv("TEST_SLACK_SECRET", testSecret)
	h := &brokertest.Inbox{}
	ch, err := New(Config{
		BotTokenEnv: "TEST_SLACK_BOT", AppTokenEnv: "TEST_SLACK_APP", SigningSecretEnv: "TEST_SLACK_SECRET",
		Mode: ModeHTTP, APIURL: fake.URL,
	}, h, channels.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatalf("New: %v", err)
	}
	for _, s := range slackSeeds {
		f.Add(s.kind, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		rec := httptest.NewRecorder()
		ch.Handler().ServeHTTP(rec, signedRequest(kind, data))
		ch.work.Wait() // actions are processed after the response
		switch rec.Code {
		case http.StatusOK:
		case http.StatusBadRequest:
			if why := rec.Body.String(); !strings.Contains(why, "malformed") && !strings.Contains(why, "not a Slack") && !strings.Contains(why, "without channel_id or user_id") {
				t.Errorf("400 without saying why: %q", rec.Body.String())
			}
		default:
			t.Errorf("status %d for kind %d body %q", rec.Code, kind%3, data)
		}
		// Every Inbound names the channel; a slash command names its
		// chat and user too (one without them is refused with a 400).
		for _, in := range h.Take() {
			if in.Channel != Name {
				t.Errorf("inbound %+v does not name the slack channel", in)
			}
			if kind%3 == fuzzForm && (in.Chat == "" || in.User == "") {
				t.Errorf("slash command inbound %+v lacks its chat or user", in)
			}
		}
	})
}

// slackSeeds are real payload shapes: button taps, a multi-select submit,
// the Other modal, a slash command, a thread reply and broken bodies.
var slackSeeds = []struct {
	kind uint8
	body string
}{
	{fuzzInteraction, `{"type":"block_actions","user":{"id":"U0ANA0001","username":"ana","name":"ana","team_id":"T0TEAM001"},"api_app_id":"A0APP0001","token":"x","container":{"type":"message","message_ts":"1700000000.000100","channel_id":"C0GENERAL","is_ephemeral":false},"trigger_id":"123.456.abc","team":{"id":"T0TEAM001","domain":"team"},"channel":{"id":"C0GENERAL","name":"general"},"message":{"type":"message","ts":"1700000000.000100","text":"Which database?"},"response_url":"https://hooks.slack.com/actions/T0/1/x","actions":[{"action_id":"opt:1","block_id":"q:k7m2qx:0","text":{"type":"plain_text","text":"Postgres"},"value":"/answer k7m2qx 1","type":"button","action_ts":"1700000001.000200"}]}`},
	{fuzzInteraction, `{"type":"block_actions","user":{"id":"U0ANA0001","name":"ana"},"container":{"type":"message","message_ts":"1.1","channel_id":"D0ANA0001"},"actions":[{"action_id":"submit","block_id":"ms:k7m2qx:0","value":"{\"id\":\"k7m2qx\",\"prompt\":1}","type":"button"}],"state":{"values":{"ms:k7m2qx:0":{"ticks":{"type":"checkboxes","selected_options":[{"value":"1"},{"value":"3"}]}}}}}`},
	{fuzzInteraction, `{"type":"block_actions","user":{"id":"U0ANA0001","name":"ana"},"channel":{"id":"C0GENERAL"},"trigger_id":"1.2.3","actions":[{"action_id":"other","value":"{\"id\":\"k7m2qx\",\"prompt\":1}","type":"button"}]}`},
	{fuzzInteraction, `{"type":"view_submission","user":{"id":"U0ANA0001","name":"ana"},"view":{"id":"V1","type":"modal","callback_id":"other","private_metadata":"{\"id\":\"k7m2qx\",\"prompt\":1,\"chat\":\"C0GENERAL\"}","state":{"values":{"other":{"text":{"type":"plain_text_input","value":"CockroachDB"}}}}}}`},
	{fuzzInteraction, `{"type":"block_actions","actions":[{}]}`},
	{fuzzInteraction, `{"type":"block_actions","user":{"id":"U0ANA0001","name":"ana"},"channel":{"id":"C0GENERAL"},"actions":[{"action_id":"opt.1","block_id":"ask.k7m2qx.0.actions","value":"1o:k7m2qx.1/1:2","type":"button"}]}`},
	{fuzzInteraction, `{"type":"block_actions","user":{"id":"U0ANA0001","name":"ana"},"container":{"type":"message","message_ts":"1.1","channel_id":"C0GENERAL"},"actions":[{"action_id":"submit","block_id":"ask.k7m2qx.0.actions","value":"1d:k7m2qx.1/1","type":"button"}],"state":{"values":{"ask.k7m2qx.0.actions":{"pick":{"type":"checkboxes","selected_options":[{"value":"0"},{"value":"2"}]}}}}}`},
	{fuzzInteraction, `{"type":"block_actions","user":{"id":"U0ANA0001","name":"ana"},"channel":{"id":"C0GENERAL"},"trigger_id":"1.2.3","message":{"ts":"1.1","blocks":[{"type":"section","block_id":"ask.k7m2qx.0.question","text":{"type":"mrkdwn","text":"Which?"}},{"type":"actions","block_id":"ask.k7m2qx.0.actions","elements":[{"type":"button","action_id":"opt.0","text":{"type":"plain_text","text":"A"},"value":"1o:k7m2qx.1/1:1"}]}]},"actions":[{"action_id":"other","block_id":"ask.k7m2qx.0.actions","value":"1x:k7m2qx.1/1","type":"button"}]}`},
	{fuzzInteraction, `{"type":"view_submission","user":{"id":"U0ANA0001","name":"ana"},"view":{"id":"V1","type":"modal","callback_id":"askbridge.other","private_metadata":"1x:k7m2qx.1/1 C0GENERAL","state":{"values":{"other":{"text":{"type":"plain_text_input","value":"with WAL"}},"choice":{"pick":{"type":"radio_buttons","selected_option":{"value":"1"}}}}}}}`},
	{fuzzEvent, `{"token":"x","team_id":"T0TEAM001","api_app_id":"A0APP0001","type":"event_callback","event_id":"Ev0001","event_time":1700000000,"event":{"type":"message","channel":"C0GENERAL","user":"U0ANA0001","text":"2","ts":"1700000002.000300","thread_ts":"1700000000.000100","channel_type":"channel"}}`},
	{fuzzEvent, `{"type":"event_callback","event_id":"Ev0002","event":{"type":"message","channel":"D0ANA0001","user":"U0ANA0001","text":"answer k7m2qx 2","ts":"1.2","channel_type":"im"}}`},
	{fuzzEvent, `{"type":"event_callback","event_id":"Ev0003","event":{"type":"app_mention","channel":"C0GENERAL","user":"U0ANA0001","text":"<@U0BOT0001> /pending","ts":"1.3"}}`},
	{fuzzEvent, `{"type":"url_verification","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","token":"x"}`},
	{fuzzEvent, `{"type":"event_callback","event":null}`},
	{fuzzForm, `token=x&team_id=T0TEAM001&channel_id=C0GENERAL&channel_name=general&user_id=U0ANA0001&user_name=ana&command=%2Fanswer&text=k7m2qx+2&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2F1&trigger_id=1.2.3`},
	{fuzzForm, `ssl_check=1&token=x`},
	{fuzzForm, `command=%2Fpending`},
	{fuzzForm, `%zz`},
	{fuzzEvent, ``},
}
