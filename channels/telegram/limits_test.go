package telegram

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/askbridge/askbridge/broker"
)

// asciiJSON marshals v as the Bot API writes JSON: every character
// outside ASCII as a \uXXXX escape (a surrogate pair beyond the BMP).
func asciiJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range string(raw) {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			fmt.Fprintf(&b, `\u%04x`, u)
		}
	}
	return []byte(b.String())
}

// largestRequest is the largest single question the broker accepts,
// written in a script of three UTF-8 bytes per character; its message is
// cut at Telegram's 4096 characters.
func largestRequest() *broker.AskRequest {
	req := &broker.AskRequest{
		Context:  strings.Repeat("語", broker.MaxContextChars),
		Question: strings.Repeat("問", broker.MaxQuestionChars),
		Header:   "見出し",
	}
	for o := range broker.MaxOptions {
		req.Options = append(req.Options, broker.Option{Label: "選択 " + strconv.Itoa(o), Description: strings.Repeat("説", broker.MaxDescriptionChar)})
	}
	return req
}

// postUpdate posts an update to the webhook at url as Telegram would,
// with secret in its header (none when ""), and returns the status.
func postUpdate(t *testing.T, url, secret string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set(SecretHeader, secret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestWebhookBodyLimit(t *testing.T) {
	e := newEnv(t, envOptions{mode: ModeWebhook})
	e.fake.WaitFor(waitLimit, func() bool { u, _ := e.fake.Webhook(); return u != "" })
	q, m := e.ask(largestRequest(), team)
	chat := map[string]any{"id": team.ID, "type": "supergroup", "title": team.Title}
	// The largest update a person can cause: a reply of Telegram's
	// 4096-character maximum to the question message, which the update
	// carries whole, keyboard included.
	reply := asciiJSON(t, map[string]any{"update_id": 900001, "message": map[string]any{
		"message_id": 9001, "date": 1, "chat": chat, "text": strings.Repeat("答", 4096),
		"from": map[string]any{"id": ana.ID, "is_bot": false, "first_name": ana.FirstName, "username": ana.Username},
		"reply_to_message": map[string]any{
			"message_id": m.ID, "date": 1, "chat": chat, "text": m.Text, "entities": m.Entities,
			"from":         map[string]any{"id": botUser.ID, "is_bot": true, "first_name": botUser.FirstName, "username": botUser.Username},
			"reply_markup": map[string]any{"inline_keyboard": m.Keyboard},
		},
	}})
	t.Logf("a 4096-character reply to the largest question: %d bytes of %d", len(reply), maxUpdateBody)
	tests := []struct {
		name string
		body []byte
		want int
	}{
		{"the largest reply", reply, http.StatusOK},
		{"a body over the limit", []byte(`{"update_id":900002,"pad":"` + strings.Repeat("x", maxUpdateBody) + `"}`), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := postUpdate(t, e.hookURL, testSecret, tt.body); got != tt.want {
				t.Errorf("status %d, want %d", got, tt.want)
			}
		})
	}
	if got := e.waitResolved(q.ID); got.Answers[q.Prompts[0].Question].CustomText != strings.Repeat("答", 4096) {
		t.Errorf("the largest reply was not recorded as the answer: %+v", got.Answers)
	}
}

var refusalCount = regexp.MustCompile(`msg="refused a webhook request without the secret token".* count=(\d+)`)

func TestWebhookRefusalFloodLogsAFewLines(t *testing.T) {
	e := newEnv(t, envOptions{mode: ModeWebhook, noRun: true})
	const forged = 300
	start := time.Now()
	for i := range forged {
		secret := []string{"", "wrong-secret"}[i%2]
		if got := postUpdate(t, e.hookURL, secret, []byte(`{"update_id":1}`)); got != http.StatusUnauthorized {
			t.Fatalf("request without the secret: status %d, want 401", got)
		}
	}
	elapsed := time.Since(start)
	var lines, counted int
	eventually(func() bool {
		lines, counted = 0, 0
		for _, m := range refusalCount.FindAllStringSubmatch(e.logs.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			lines++
			counted += n
		}
		return counted >= forged
	})
	if counted != forged {
		t.Fatalf("the refusal lines count %d requests, want %d", counted, forged)
	}
	if max := int(elapsed/time.Second) + 2; lines > max {
		t.Errorf("%d refused requests over %s wrote %d lines, want at most %d", forged, elapsed, lines, max)
	}
}

// eventually polls cond until it holds or waitLimit passes.
func eventually(cond func() bool) bool {
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}
