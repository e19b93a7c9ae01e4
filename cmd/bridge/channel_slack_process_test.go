package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// channelSlackConfig is the route "ops" on a fake Slack in http mode,
// which only Ana may answer.
const channelSlackConfig = `
people:
  - id: ana
    name: Ana Lima
    accounts: ["slack:U0000002"]
routes:
  default:
    targets: [web]
  ops:
    targets: ["slack:C0OPS0001"]
    responders: ["person:ana"]
channels:
  slack:
    mode: http
    bot_token_env: CHANNELSLACK_BOT
    signing_secret_env: CHANNELSLACK_SECRET
    api_url: %s
`

// channelSlackSecret signs the deliveries of the fake Slack.
const channelSlackSecret = "channel-slack-signing-secret"

// deliverSlack posts body to the bridge's Slack endpoint at path, signed
// as Slack signs it, and fails the test unless it is taken.
func deliverSlack(t *testing.T, addr, path, contentType string, body []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range slackfake.Sign(channelSlackSecret, time.Now(), body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, answer)
	}
}

// TestProcessChannelSlackRoundTrip is the whole round trip through the
// fake Slack, with the Slack app in http mode: Claude Code relays a
// permission prompt, the question is posted to Slack, Ana taps Allow
// (a signed block_actions payload) and Claude Code gets the verdict;
// then Ana writes in the question's thread (a signed message event),
// which reaches Claude as a channel event, and Claude's reply tool posts
// the answer in that thread (chat.postMessage with its thread_ts).
func TestProcessChannelSlackRoundTrip(t *testing.T) {
	fake := slackfake.New(t)
	ana := slackfake.User{ID: "U0000002", Name: "ana"}
	fake.AddUser(ana)
	addr, dir := freeAddr(t), t.TempDir()
	cfg := writeConfig(t, dir, fmt.Sprintf(channelSlackConfig, fake.URL))
	startServe(t, addr, []string{"CHANNELSLACK_BOT=" + slackfake.BotToken, "CHANNELSLACK_SECRET=" + channelSlackSecret},
		"--config", cfg, "--data-dir", dir)
	p := startChannel(t, addr, "channel-slack", "--route", "ops")

	// The prompt, posted to Slack.
	p.prompt("slkrt", "Bash", "Deploy the site", `{"command":"make deploy"}`)
	q := p.questionFor(addr, "slkrt")
	msg := slackCopy(t, fake, q.ID)
	if msg.Channel != "C0OPS0001" || !strings.Contains(msg.Text, "Claude Code asks: allow Bash?") {
		t.Fatalf("the copy in Slack: %s %q", msg.Channel, msg.Text)
	}

	// Allow, tapped in Slack.
	allow, ok := msg.Button("Allow once")
	if !ok {
		t.Fatalf("the copy has no Allow once button: %+v", msg.Buttons())
	}
	tap, err := json.Marshal(slackfake.ClickButton(msg, ana, allow))
	if err != nil {
		t.Fatal(err)
	}
	deliverSlack(t, addr, "/slack/interactions", "application/x-www-form-urlencoded", []byte(url.Values{"payload": {string(tap)}}.Encode()))
	if got := p.verdict("slkrt"); got != "allow" {
		t.Fatalf("verdict %q, want allow", got)
	}
	toldRecorded(t, fake, ana, "Allow once")
	until(t, "the channel listening", func() bool { return strings.Contains(p.stderr.String(), "listening for people's messages") })

	// Ana's message in the thread, to Claude.
	n := len(fake.Ephemerals())
	event, err := json.Marshal(slackfake.MessageEvent(slackfake.MessageOpts{User: ana, Channel: "C0OPS0001", Text: "Deploy to staging first, please.", ThreadTS: msg.TS}))
	if err != nil {
		t.Fatal(err)
	}
	deliverSlack(t, addr, "/slack/events", "application/json", event)
	if got := ephemeralTo(t, fake, ana, n); got.Text != "Sent to the agent's session." || got.ThreadTS != msg.TS {
		t.Fatalf("Ana was told %q in thread %q", got.Text, got.ThreadTS)
	}
	until(t, "Ana's message as a channel event", func() bool { return len(p.chatEvents()) > 0 })
	ev := p.chatEvents()[0]
	if ev.Params.Content != "Deploy to staging first, please." || ev.Params.Meta["person"] != "ana" || ev.Params.Meta["channel"] != "slack" ||
		ev.Params.Meta["question_id"] != q.ID || ev.Params.Meta["message_id"] == "" {
		t.Fatalf("channel event %+v", ev)
	}

	// Claude's answer, in the thread.
	calls := fake.Calls("chat.postMessage")
	res, err := p.callReply(map[string]any{"text": "Deploying to staging first.", "message_id": ev.Params.Meta["message_id"]})
	if err != nil || res.IsError {
		t.Fatalf("reply: %+v %q, %v", res, toolText(res), err)
	}
	if got := fake.Calls("chat.postMessage") - calls; got != 1 {
		t.Fatalf("%d chat.postMessage calls for the reply, want 1", got)
	}
	var reply slackfake.Message
	until(t, "the reply in the thread", func() bool {
		for _, m := range fake.Messages() {
			if m.ThreadTS == msg.TS {
				reply = m
				return true
			}
		}
		return false
	})
	if reply.Channel != "C0OPS0001" || reply.Text != "Deploying to staging first." {
		t.Fatalf("the reply in the thread: %s %q", reply.Channel, reply.Text)
	}
}
