package slack

import (
	"encoding/json"
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
// a script of three UTF-8 bytes per character: four prompts of four
// options with the longest labels, every option of its multi-select
// prompts ticked, and a Snooze button.
func largestQuestion() *broker.Question {
	q := sampleQuestion()
	q.Context = strings.Repeat("語", broker.MaxContextChars)
	q.Prompts = nil
	for p := range broker.MaxPrompts {
		pr := broker.Prompt{Question: strings.Repeat("問", broker.MaxQuestionChars), Header: "見出し" + strconv.Itoa(p), MultiSelect: p%2 == 1}
		for o := range broker.MaxOptions {
			pr.Options = append(pr.Options, broker.Option{
				Label:       strings.Repeat("選", 58) + " " + strconv.Itoa(o),
				Description: strings.Repeat("説", broker.MaxDescriptionChar),
			})
		}
		q.Prompts = append(q.Prompts, pr)
		if pr.MultiSelect {
			q.Selections = map[int][]int{p: {0, 1, 2, 3}}
		}
	}
	q.Policy.Snooze = &broker.SnoozePolicy{}
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

// TestButtonDataFitsForTheLargestQuestion: on the largest question every
// button carries a step within broker.MaxStepData bytes, far below
// Slack's 2000, that names the question and its prompt; and the Other
// modal of its last prompt, opened through the fake, carries its step in
// a few bytes of private_metadata and offers the prompt's options again.
func TestButtonDataFitsForTheLargestQuestion(t *testing.T) {
	e := newEnv(t, ModeSocket, &brokertest.Inbox{})
	e.run(t)
	q := largestQuestion()
	m := postOne(t, e, q, general)
	buttons := m.Buttons()
	// Per prompt: the options (or Submit), Other or note…, Skip; then
	// Not ready, Decline, Snooze.
	if want := 2*(4+2) + 2*(1+2) + 3; len(buttons) != want {
		t.Fatalf("%d buttons, want %d: %+v", len(buttons), want, buttons)
	}
	longest := 0
	for _, b := range buttons {
		longest = max(longest, len(b.Value))
		if len(b.Value) > broker.MaxStepData || len(b.Value) > maxButtonValue {
			t.Errorf("button %q carries %d bytes: %q", b.Text, len(b.Value), b.Value)
		}
		s, err := broker.DecodeStep(b.Value)
		if err != nil || s.Ref.ID != q.ID || s.Ref.Count != broker.MaxPrompts {
			t.Errorf("button %q: step %+v, %v", b.Text, s, err)
		}
	}
	t.Logf("the longest button value on the largest question: %d bytes of Slack's %d", longest, maxButtonValue)

	var other slackfake.Button
	for _, b := range buttons {
		if b.Text == "Other or note…" && strings.HasPrefix(b.BlockID, blockID(q.ID, broker.MaxPrompts-1)) {
			other = b
		}
	}
	tap, err := slackfake.SubmitCheckboxes(m, ana, other, 0, 1, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	e.send(t, "interactive", tap)
	waitFake(t, e.fake, "views.open", func() bool { return len(e.fake.Views()) == 1 })
	var view struct {
		PrivateMetadata string `json:"private_metadata"`
	}
	v := e.fake.Views()[0]
	if err := json.Unmarshal(v.View, &view); err != nil {
		t.Fatal(err)
	}
	if n := len(view.PrivateMetadata); n > broker.MaxStepData+1+len(general) || n > maxPrivateMetadata {
		t.Errorf("private_metadata of %d bytes: %q", n, view.PrivateMetadata)
	}
	if got := modalChoices(t, v); !strings.HasPrefix(got, "checkboxes: "+strings.Repeat("選", 58)+" 0, ") || !strings.HasSuffix(got, "ticked: 0,1,2,3") {
		t.Errorf("the modal offers %q", got)
	}
}
