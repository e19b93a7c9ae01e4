package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/askbridge/askbridge/channels/discord/discordfake"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// slowAnswers serves upstream through a proxy that holds each answer
// for a random while after the platform has acted on the request: the
// window in which a killed bridge has posted a copy without recording
// it.
func slowAnswers(t *testing.T, upstream string, most time.Duration) string {
	t.Helper()
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(r *http.Response) error {
		if r.StatusCode != http.StatusSwitchingProtocols {
			time.Sleep(rand.N(most))
		}
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// apiJSON makes one request to the bridge's agent API and decodes the
// answer into out.
func apiJSON(t *testing.T, method, u string, body, out any) int {
	t.Helper()
	var rd bytes.Buffer
	if body != nil {
		if err := json.NewEncoder(&rd).Encode(body); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequest(method, u, &rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0 // the bridge was killed under the request
	}
	defer resp.Body.Close()
	if out != nil {
		_ = json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// copyView is a copy as GET /v1/questions/{id} lists it.
type copyView struct {
	Target struct {
		Channel string `json:"channel"`
		Chat    string `json:"chat"`
	} `json:"target"`
	State     string `json:"state"`
	MessageID string `json:"message_id"`
	Edit      string `json:"edit"`
}

// TestOutboxSurvivesKill9 runs `bridge serve` on SQLite against fake
// Slack, Discord and Telegram, whose answers are held up to 300 ms after
// they act, and kills it with SIGKILL at random moments while it posts
// the copies of questions being asked and edits those of questions being
// cancelled. After the last restart every question has its copy on every
// platform, exactly one on Slack (found again by its metadata) and on
// Discord (its nonce enforced), at most two on Telegram (which has no
// key to find a copy by), and every copy the bridge recorded shows the
// outcome.
func TestOutboxSurvivesKill9(t *testing.T) {
	const (
		rounds   = 4
		perRound = 5
	)
	slack := slackfake.New(t)
	disc := discordfake.New()
	t.Cleanup(disc.Close)
	guild := disc.NewGuild()
	dchat := disc.AddChannel(guild)
	tgToken := "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	tg := telegramfake.New(tgToken, telegramfake.User{ID: 777000111, FirstName: "Ask Bridge", Username: "askbridge_bot"})
	t.Cleanup(tg.Close)
	group := telegramfake.Chat{ID: -1001234567890, Type: "supergroup", Title: "Team"}
	tg.AddChat(group)
	const schat = "C0KILL001"

	most := 300 * time.Millisecond
	dir, addr := t.TempDir(), freeAddr(t)
	cfg := filepath.Join(dir, "askbridge.yaml")
	err := os.WriteFile(cfg, []byte(fmt.Sprintf(`channels:
  slack:
    mode: http
    bot_token_env: KILLTEST_SLACK_BOT
    signing_secret_env: KILLTEST_SLACK_SECRET
    api_url: %s/api
  discord:
    token_env: KILLTEST_DISCORD
    application_id: %q
    guild_id: %q
    api_url: %s
  telegram:
    token_env: KILLTEST_TELEGRAM
    api_url: %s
routes:
  default:
    targets: ["slack:%s", "discord:%s", "telegram:%d"]
`, slowAnswers(t, strings.TrimSuffix(slack.URL, "/api"), most), disc.AppID, guild, slowAnswers(t, disc.URL(), most),
		slowAnswers(t, tg.URL(), most), schat, dchat, group.ID)), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"KILLTEST_SLACK_BOT=" + slackfake.BotToken, "KILLTEST_SLACK_SECRET=fake-signing-secret",
		"KILLTEST_DISCORD=" + disc.Token, "KILLTEST_TELEGRAM=" + tgToken}
	serve := func() *proc { return startServe(t, addr, env, "--config", cfg, "--data-dir", dir) }
	base := "http://" + addr + "/v1/questions"

	ask := func(n int) string {
		var q struct {
			ID string `json:"id"`
		}
		req := map[string]any{"question": fmt.Sprintf("Ship build %d?", n), "options": []map[string]string{{"label": "Yes"}, {"label": "No"}},
			"session_id": "kill", "tool_call_id": "q" + strconv.Itoa(n), "wait": "0s"}
		apiJSON(t, http.MethodPost, base, req, &q)
		return q.ID
	}
	// copiesOf reads the copies of id, and whether all are posted (and,
	// with edited, edited).
	copiesOf := func(id string, edited bool) ([]copyView, bool) {
		var q struct {
			Copies []copyView `json:"copies"`
		}
		apiJSON(t, http.MethodGet, base+"/"+id, nil, &q)
		done := len(q.Copies) == 3
		for _, c := range q.Copies {
			done = done && c.State == "posted" && (!edited || c.Edit == "done")
		}
		return q.Copies, done
	}
	cancel := func(id string) {
		apiJSON(t, http.MethodPost, base+"/"+id+"/cancel", map[string]string{"reason": "not needed"}, nil)
	}

	var mu sync.Mutex
	ids := map[string]bool{} // asked, and whether cancelled
	asked := 0
	for round := range rounds {
		p := serve()
		var wg sync.WaitGroup
		// Cancel the questions of earlier rounds that are posted
		// everywhere (a question closed before its copy is posted is
		// never posted there), while asking this round's, so that posts
		// and edits are both under way at the kill.
		mu.Lock()
		for id, cancelled := range ids {
			if !cancelled {
				wg.Go(func() {
					if _, posted := copiesOf(id, false); posted {
						cancel(id)
						mu.Lock()
						ids[id] = true
						mu.Unlock()
					}
				})
			}
		}
		mu.Unlock()
		for range perRound {
			n := asked
			asked++
			wg.Go(func() {
				if id := ask(n); id != "" {
					mu.Lock()
					ids[id] = ids[id] || false
					mu.Unlock()
				}
			})
		}
		time.Sleep(300*time.Millisecond + rand.N(2*time.Second))
		p.kill()
		wg.Wait()
		t.Logf("round %d: killed with %d questions asked", round, len(ids))
	}

	// The last run: ask again the questions whose answer the kills lost
	// (the same session and tool call id return the same question), wait
	// for every copy to be posted, cancel every question, and wait for
	// every copy to be edited.
	serve()
	seen := map[string]bool{}
	question := map[string]string{} // id → its text, which the Telegram copy shows
	for n := range asked {
		id := ask(n)
		if id == "" {
			t.Fatalf("asking question %d again failed", n)
		}
		seen[id] = true
		question[id] = fmt.Sprintf("Ship build %d?", n)
	}
	if len(seen) != asked {
		t.Fatalf("%d questions asked, %d ids; want one question per tool call", asked, len(seen))
	}
	deadline := time.Now().Add(5 * time.Minute)
	copies := map[string][]copyView{}
	for _, edited := range []bool{false, true} {
		for id := range seen {
			for {
				cs, done := copiesOf(id, edited)
				if done {
					copies[id] = cs
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("question %s never had every copy posted (and edited: %v): %+v", id, edited, cs)
				}
				time.Sleep(200 * time.Millisecond)
			}
			if !edited {
				cancel(id)
			}
		}
	}
	checkKillCopies(t, copies, question, slack, disc, tg, dchat, group.ID)
}

// checkKillCopies counts each question's messages on each fake platform
// and checks the recorded copy of each shows the outcome.
func checkKillCopies(t *testing.T, copies map[string][]copyView, question map[string]string, slack *slackfake.Server, disc *discordfake.Server, tg *telegramfake.Server, dchat string, group int64) {
	t.Helper()
	onSlack := map[string]int{}
	for _, m := range slack.Messages() {
		var md struct {
			EventPayload map[string]string `json:"event_payload"`
		}
		if json.Unmarshal(m.Metadata, &md) == nil {
			onSlack[md.EventPayload["question_id"]]++
		}
	}
	onDiscord := map[string]int{}
	for _, m := range disc.Messages(dchat) {
		if id, _, ok := strings.Cut(strings.TrimPrefix(m.Nonce, "q"), "."); ok {
			onDiscord[id]++
		}
	}
	tgMsgs := tg.BotMessages(group)
	extraTelegram := 0
	for id, cs := range copies {
		if onSlack[id] != 1 || onDiscord[id] != 1 {
			t.Errorf("question %s has %d copies on Slack and %d on Discord; want one each", id, onSlack[id], onDiscord[id])
		}
		n := 0
		for _, m := range tgMsgs {
			if strings.Contains(m.Text, question[id]) {
				n++
			}
		}
		if n < 1 || n > 2 {
			t.Errorf("question %s has %d copies on Telegram; want one, or two after a kill", id, n)
		}
		extraTelegram += n - 1
		for _, c := range cs {
			var edited bool
			switch c.Target.Channel {
			case "slack":
				m, ok := slack.Message(c.Target.Chat, c.MessageID)
				edited = ok && m.Updates > 0 && len(m.Buttons()) == 0
			case "discord":
				m := disc.Message(c.MessageID)
				edited = m != nil && m.Edits > 0 && len(m.Components) == 0
			case "telegram":
				msgID, _ := strconv.Atoi(c.MessageID)
				m, ok := tg.Message(group, msgID)
				edited = ok && m.Edits > 0 && len(m.Keyboard) == 0
			}
			if !edited {
				t.Errorf("question %s: the recorded %s copy %s does not show the outcome", id, c.Target.Channel, c.MessageID)
			}
		}
	}
	t.Logf("%d questions: one copy each on Slack and Discord; %d extra copies on Telegram", len(copies), extraTelegram)
}
