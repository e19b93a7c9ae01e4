package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/channels/slack/slackfake"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
	"github.com/askbridge/askbridge/client"
)

// peopleConfig is the prod/oncall policy of config.example.yaml, with its
// times shortened: two of the SRE group, never the requester (Rick, for
// whom the agent works), escalation to on-call (Ana on Telegram).
const peopleConfig = `
agents:
  - name: deployer
    key_env: PEOPLE_AGENT_KEY
    on_behalf_of: ["person:rick"]
people:
  - id: ana
    name: Ana Lima
    accounts: ["slack:U0000002", "telegram:42"]
  - id: bo
    name: Bo Chen
    accounts: ["slack:U0000003"]
  - id: rick
    name: Rick Diaz
    accounts: ["slack:U0000001", "telegram:41"]
    web_token_env: PEOPLE_WEB_RICK
groups:
  sre: [ana, bo, rick]
routes:
  default:
    targets: [web, cli]
  prod:
    targets: ["slack:C0123456789", web]
    responders: ["group:sre"]
    timeout: 5m
    quorum: 2
    forbid_requester: true
    escalate: [{after: 2s, route: oncall}]
  deploy:
    targets: [web]
    forbid_requester: true
  oncall:
    targets: ["telegram:-1009876543210"]
    responders: ["person:ana", "person:rick"]
channels:
  slack:
    mode: socket
    bot_token_env: PEOPLE_SLACK_BOT
    app_token_env: PEOPLE_SLACK_APP
    api_url: %s
  telegram:
    token_env: PEOPLE_TELEGRAM
    api_url: %s
    poll_timeout: 1s
  web:
    token_env: PEOPLE_WEB_SHARED
`

// TestProcessOnePersonOneVote is the attack on the prod policy, through
// the fake Slack and the fake Telegram: after escalation the same
// engineer votes Allow in Slack and again as the on-call Telegram user,
// and the requester tries Slack and Telegram. One person counts once,
// the requester is refused everywhere, and a second person decides.
func TestProcessOnePersonOneVote(t *testing.T) {
	const tgToken = "777000111:people-test-token"
	slack := slackfake.New(t)
	ana, bo, rick := slackfake.User{ID: "U0000002", Name: "ana"}, slackfake.User{ID: "U0000003", Name: "bo"}, slackfake.User{ID: "U0000001", Name: "rick"}
	for _, u := range []slackfake.User{ana, bo, rick} {
		slack.AddUser(u)
	}
	tg := telegramfake.New(tgToken, telegramfake.User{ID: 777000111, FirstName: "Ask Bridge", Username: "askbridge_bot"})
	t.Cleanup(tg.Close)
	oncall := telegramfake.Chat{ID: -1009876543210, Type: "supergroup", Title: "On-call"}
	tg.AddChat(oncall)
	anaTG, rickTG := telegramfake.User{ID: 42, FirstName: "Ana"}, telegramfake.User{ID: 41, FirstName: "Rick"}

	bridgeBinary(t) // built before any command runs against its time limit
	dir, addr := t.TempDir(), freeAddr(t)
	cfg := filepath.Join(dir, "askbridge.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(peopleConfig, slack.URL, tg.URL())), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runBridge(t, addr, "check-config", "--config", cfg, "--allow-missing-env"); r.code != 0 {
		t.Fatalf("check-config: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	const agentKey = "people-agent-key-0123456789abcdef"
	const rickToken, sharedToken = "rick-own-inbox-token-0123456789", "shared-inbox-token-0123456789"
	startServe(t, addr, []string{"PEOPLE_AGENT_KEY=" + agentKey, "PEOPLE_SLACK_BOT=" + slackfake.BotToken,
		"PEOPLE_SLACK_APP=" + slackfake.AppToken, "PEOPLE_TELEGRAM=" + tgToken,
		"PEOPLE_WEB_RICK=" + rickToken, "PEOPLE_WEB_SHARED=" + sharedToken}, "--config", cfg, "--data-dir", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	api := client.New("http://"+addr, agentKey)
	asked, err := api.Submit(ctx, client.Question{Route: "prod", SessionID: "s1", ToolCallID: "t1", Question: "Deploy build 412 to production?",
		Options: []client.Option{{Label: "Allow"}, {Label: "Deny"}}, Wait: "0s"})
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	id := asked.ID

	var msg slackfake.Message
	until(t, "the copy in Slack", func() bool {
		for _, m := range slack.Messages() {
			if m.Channel == "C0123456789" && strings.Contains(m.Text, id) {
				msg = m
				return true
			}
		}
		return false
	})
	allow, ok := msg.Button("Allow")
	if !ok {
		t.Fatalf("the Slack copy has no Allow button: %+v", msg.Buttons())
	}
	tap := func(u slackfake.User) string {
		t.Helper()
		before := len(slack.Ephemerals())
		if err := slack.WaitConnected(ctx); err != nil {
			t.Fatal(err)
		}
		env, err := slack.Send("interactive", slackfake.ClickButton(msg, u, allow))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := slack.WaitAck(ctx, env); err != nil {
			t.Fatal(err)
		}
		var text string
		until(t, "the reply to "+u.Name+" in Slack", func() bool {
			for _, e := range slack.Ephemerals()[before:] {
				if e.User == u.ID {
					text = e.Text
					return true
				}
			}
			return false
		})
		return text
	}
	if got := tap(rick); !strings.Contains(got, "so you cannot approve it") {
		t.Fatalf("the requester's Allow in Slack: %q, want refused", got)
	}
	if got := tap(ana); !strings.HasPrefix(got, "Recorded your vote: Allow (1 of 2: Allow by Ana Lima)") {
		t.Fatalf("Ana's Allow in Slack: %q", got)
	}

	// The escalation posts the question to the on-call Telegram group.
	var copyTG telegramfake.Message
	until(t, "the escalated copy on Telegram", func() bool {
		for _, m := range tg.BotMessages(oncall.ID) {
			if strings.Contains(m.Text, id) {
				copyTG = m
				return true
			}
		}
		return false
	})
	var allowTG string
	for _, row := range copyTG.Keyboard {
		for _, b := range row {
			if strings.Contains(b.Text, "Allow") {
				allowTG = b.CallbackData
			}
		}
	}
	tapTG := func(u telegramfake.User) string {
		t.Helper()
		cb := tg.Tap(u, oncall.ID, copyTG.ID, allowTG)
		var a telegramfake.CallbackAnswer
		until(t, "the answer to the tap on Telegram", func() bool { a = tg.Callback(cb); return a.Answered })
		return a.Text
	}
	if got := tapTG(anaTG); got != "You already chose Allow on "+id+"; nothing changed." {
		t.Fatalf("Ana's Allow again as the on-call Telegram user: %q, want her one vote", got)
	}
	if got := tapTG(rickTG); !strings.Contains(got, "so you cannot approve it") {
		t.Fatalf("the requester's Allow on Telegram: %q, want refused", got)
	}
	// In the web inbox, the requester signed in with his own token is
	// refused too, and so is the shared token's user, who is no person.
	if got := inboxCommand(t, addr, rickToken, "/answer "+id+" 1"); !strings.Contains(got, "so you cannot approve it") {
		t.Fatalf("the requester's Allow in the web inbox: %q, want refused", got)
	}
	if got := inboxCommand(t, addr, sharedToken, "/answer "+id+" 1"); !strings.HasPrefix(got, "You are not one of the people asked to answer") {
		t.Fatalf("the shared inbox token's Allow: %q, want refused", got)
	}
	// On a forbid_requester route with only the inbox and no responders
	// list, the requester signed in as himself is refused, and so is the
	// shared token's user "web", who could otherwise be anyone.
	plain, err := api.Submit(ctx, client.Question{Route: "deploy", SessionID: "s1", ToolCallID: "t2", Question: "Deploy build 413?",
		Options: []client.Option{{Label: "Allow"}, {Label: "Deny"}}, Wait: "0s"})
	if err != nil {
		t.Fatalf("ask on deploy: %v", err)
	}
	if got := inboxCommand(t, addr, rickToken, "/answer "+plain.ID+" 1"); !strings.Contains(got, "so you cannot approve it") {
		t.Fatalf("the requester in the inbox on deploy: %q, want refused", got)
	}
	if got := inboxCommand(t, addr, sharedToken, "/answer "+plain.ID+" 1"); got != "Your web inbox account is not linked to a person on this route; nothing was recorded." {
		t.Fatalf("the shared inbox token on deploy: %q, want refused as no person", got)
	}
	if q, err := api.Get(ctx, plain.ID, 0); err != nil || q.Status != client.StatusPending {
		t.Fatalf("deploy question after the refusals: %+v, %v; want pending", q, err)
	}
	q, err := api.Get(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Status != client.StatusPending || len(q.Voters) != 0 {
		t.Fatalf("after one person's two votes and the requester's: %s, want pending", q.Status)
	}

	if got := tap(bo); !strings.Contains(got, "The quorum is reached") {
		t.Fatalf("Bo's Allow: %q, want the quorum reached", got)
	}
	q, err = api.Get(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if q.Status != client.StatusAnswered || len(q.Voters) != 2 || q.Voters[0].Person == nil || q.Voters[0].Person.ID != "ana" || q.Voters[1].Person.ID != "bo" {
		t.Fatalf("result: %s with voters %+v, want answered by Ana and Bo", q.Status, q.Voters)
	}
}

// inboxCommand signs in to the web inbox at addr with token and sends
// text as a command there, returning the reply.
func inboxCommand(t *testing.T, addr, token, text string) string {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	post := func(path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := hc.Post("http://"+addr+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatalf("%s: status %d: %v", path, resp.StatusCode, err)
		}
		return out
	}
	if r := post("/inbox/login", map[string]string{"token": token}); r["ok"] != true {
		t.Fatalf("inbox sign-in: %v", r)
	}
	r := post("/inbox/command", map[string]string{"text": text})
	reply, _ := r["reply"].(string)
	return reply
}
