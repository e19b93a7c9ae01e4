package slack

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

// largestQuestion is the largest question the broker accepts, written in
// a script of three UTF-8 bytes per character.
func largestQuestion() *broker.Question {
	q := sampleQuestion()
	q.Context = strings.Repeat("語", broker.MaxContextChars)
	q.Prompts = nil
	for p := range broker.MaxPrompts {
		pr := broker.Prompt{Question: strings.Repeat("問", broker.MaxQuestionChars), Header: "見出し" + strconv.Itoa(p), MultiSelect: p%2 == 1}
		for o := range broker.MaxOptions {
			pr.Options = append(pr.Options, broker.Option{
				Label:       "選択 " + strconv.Itoa(o),
				Description: strings.Repeat("説", broker.MaxDescriptionChar),
			})
		}
		q.Prompts = append(q.Prompts, pr)
	}
	return q
}

func TestHTTPModeBodyLimit(t *testing.T) {
	rec := &brokertest.Inbox{}
	e := newEnv(t, ModeHTTP, rec)
	srv := httptest.NewServer(e.ch.Handler())
	defer srv.Close()
	m := postOne(t, e, largestQuestion(), general)
	b := m.Buttons()[0]
	tap := []byte(url.Values{"payload": {string(mustJSON(t, slackfake.ClickButton(m, ana, b)))}}.Encode())
	if len(tap) > maxBody {
		t.Fatalf("a tap on the largest question is %d bytes, over the %d-byte limit", len(tap), maxBody)
	}
	t.Logf("a tap on the largest question: %d bytes of %d", len(tap), maxBody)

	tests := []struct {
		name     string
		body     []byte
		want     int
		recorded int
	}{
		{"a tap on the largest question", tap, http.StatusOK, 1},
		{"a body over the limit", append(tap, make([]byte, maxBody)...), http.StatusRequestEntityTooLarge, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, resp := deliver(t, srv, PathInteractions, formType, tt.body, slackfake.Sign(testSecret, time.Now(), tt.body))
			if code != tt.want {
				t.Fatalf("status %d (%q), want %d", code, resp, tt.want)
			}
			e.ch.drain()
			if got := rec.All(); len(got) != tt.recorded {
				t.Errorf("recorded %d actions, want %d", len(got), tt.recorded)
			}
		})
	}
}

var countField = regexp.MustCompile(`msg="slack request refused".* count=(\d+)`)

func TestHTTPModeForgedFloodLogsAFewLines(t *testing.T) {
	e := newEnv(t, ModeHTTP, &brokertest.Inbox{})
	srv := httptest.NewServer(e.ch.Handler())
	defer srv.Close()
	body := []byte("payload=%7B%7D")
	const forged = 300
	start := time.Now()
	for range forged {
		if code, _ := deliver(t, srv, PathInteractions, formType, body, slackfake.Sign("forged", time.Now(), body)); code != http.StatusUnauthorized {
			t.Fatalf("forged request: status %d, want 401", code)
		}
	}
	elapsed := time.Since(start)
	var lines, counted int
	deadline := time.Now().Add(5 * time.Second)
	for counted < forged && time.Now().Before(deadline) {
		lines, counted = 0, 0
		for _, m := range countField.FindAllStringSubmatch(e.logs.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			lines++
			counted += n
		}
		time.Sleep(50 * time.Millisecond)
	}
	if counted != forged {
		t.Fatalf("the refusal lines count %d requests, want %d:\n%s", counted, forged, e.logs.String())
	}
	if max := int(elapsed/time.Second) + 2; lines > max {
		t.Errorf("%d forged requests over %s wrote %d lines, want at most %d", forged, elapsed, lines, max)
	}
}

// TestOtherButtonFitsItsValue: the "Other or note…" button carries the
// prompt's reference and option labels; with the longest labels in a
// four-byte script it still fits Slack's 2000 bytes, and still names the
// question, the prompt and every option.
func TestOtherButtonFitsItsValue(t *testing.T) {
	q := sampleQuestion()
	q.Prompts[0].Question = strings.Repeat("𝄞", broker.MaxQuestionChars)
	q.Prompts[0].Options = nil
	for range broker.MaxOptions {
		q.Prompts[0].Options = append(q.Prompts[0].Options, broker.Option{Label: strings.Repeat("𝄞", 100)})
	}
	q.Prompts[0].MultiSelect = true
	v := newRef(q, 0).encodeWithin(maxButtonValue)
	if len(v) > maxButtonValue {
		t.Fatalf("value of %d bytes, Slack allows %d", len(v), maxButtonValue)
	}
	r, err := decodeRef(v)
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != q.ID || r.Prompt != 0 || r.Prompts != 1 || !r.Multi || len(r.Options) != broker.MaxOptions {
		t.Fatalf("reference after shortening: %+v", r)
	}
}
