package discord

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
	"github.com/askbridge/askbridge/internal/i18n"
)

// largestQuestion is the largest question the broker accepts, written in
// a script of three UTF-8 bytes per character.
func largestQuestion() *broker.Question {
	var prompts []broker.Prompt
	for p := range broker.MaxPrompts {
		pr := broker.Prompt{Question: strings.Repeat("問", broker.MaxQuestionChars), Header: "見出し" + strconv.Itoa(p), MultiSelect: p%2 == 1}
		for o := range broker.MaxOptions {
			pr.Options = append(pr.Options, broker.Option{Label: "選択 " + strconv.Itoa(o), Description: strings.Repeat("説", broker.MaxDescriptionChar)})
		}
		prompts = append(prompts, pr)
	}
	q := question("k7m2qx", prompts...)
	q.Context = strings.Repeat("語", broker.MaxContextChars)
	return q
}

// TestCustomIDsFitTheLargestQuestion renders the largest question, with
// the longest labels, as each of its prompts comes to be answered, with
// single- and multi-select prompts and a Snooze, and opens every form it
// offers: no custom id is over Discord's 100 characters or the broker's
// MaxStepData, and each reads back as a step.
func TestCustomIDsFitTheLargestQuestion(t *testing.T) {
	for _, multi := range []bool{false, true} {
		q := largestQuestion()
		q.Policy.Snooze = &broker.SnoozePolicy{}
		for i := range q.Prompts {
			q.Prompts[i].MultiSelect = multi
			for k := range q.Prompts[i].Options {
				q.Prompts[i].Options[k].Label = strings.Repeat(string(rune('a'+k)), 60)
			}
		}
		var ids []string
		for answered := range broker.MaxPrompts {
			q.Progress = make([]*broker.Answer, answered)
			for i := range q.Progress {
				q.Progress[i] = &broker.Answer{Selected: []string{q.Prompts[i].Options[0].Label}}
			}
			m := render(q, at)
			if len(m.Components) == 0 {
				t.Fatalf("no components for the largest question with %d prompts answered", answered)
			}
			ids = append(ids, customIDs(m.Components)...)
			for i := answered; i < len(q.Prompts); i++ {
				w := i18n.For(i18n.English)
				ids = append(ids, otherModal(w, q.Ref(i), true).Data.CustomID, otherModal(w, q.Ref(i), false).Data.CustomID,
					noteModal(w, broker.Step{Kind: broker.StepWithNote, Ref: q.Ref(i), Options: []int{0, 1, 2, 3}}).Data.CustomID)
			}
		}
		longest := ""
		for _, id := range ids {
			if len(id) > len(longest) {
				longest = id
			}
			if _, err := readStep(id); err != nil || len(id) > maxCustomID || len(id) > broker.MaxStepData {
				t.Errorf("custom id %q (%d bytes): %v", id, len(id), err)
			}
		}
		t.Logf("multi-select %v: %d custom ids, the longest %q of %d bytes (Discord allows %d)", multi, len(ids), longest, len(longest), maxCustomID)
	}
}

func TestHTTPBodyLimit(t *testing.T) {
	rec := &brokertest.Inbox{}
	e, url, priv := httpEnv(t, rec)
	m, _ := e.post(t, largestQuestion())
	ana := e.fake.NewUser("ana")
	_, tap := e.fake.ButtonInteraction(ana, m, m.CustomIDs()[0])
	_, modal := e.fake.ModalInteraction(ana, m, m.CustomIDs()[0], "text", strings.Repeat("答", 4000))
	t.Logf("a tap on the largest question: %d bytes, a full modal: %d bytes, of %d", len(tap), len(modal), maxInteractionBody)
	tests := []struct {
		name string
		body []byte
		want int
	}{
		{"a tap on the largest question", tap, http.StatusOK},
		{"a modal with 4000 characters typed", modal, http.StatusOK},
		{"a body over the limit", []byte(`{"type":1,"pad":"` + strings.Repeat("x", maxInteractionBody) + `"}`), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := e.fake.Deliver(testCtx(t), url, priv, time.Now(), tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if d.Status != tt.want {
				t.Errorf("answered %d %.200s, want %d", d.Status, d.Body, tt.want)
			}
		})
	}
}

var refusalCount = regexp.MustCompile(`msg="refused an interaction request with a bad signature".* count=(\d+)`)

func TestHTTPForgedFloodLogsAFewLines(t *testing.T) {
	e, url, _ := httpEnv(t, &brokertest.Inbox{})
	_, body := e.fake.PingInteraction()
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	const forged = 300
	start := time.Now()
	for range forged {
		d, err := e.fake.DeliverSigned(testCtx(t), url, ts, strings.Repeat("00", 64), body)
		if err != nil || d.Status != http.StatusUnauthorized {
			t.Fatalf("forged request: %v %d, want 401", err, d.Status)
		}
	}
	elapsed := time.Since(start)
	var lines, counted int
	err := discordfake.Until(testCtx(t), func() bool {
		lines, counted = 0, 0
		for _, m := range refusalCount.FindAllStringSubmatch(e.logs.String(), -1) {
			n, _ := strconv.Atoi(m[1])
			lines++
			counted += n
		}
		return counted >= forged
	})
	if err != nil || counted != forged {
		t.Fatalf("the refusal lines count %d requests, want %d", counted, forged)
	}
	if max := int(elapsed/time.Second) + 2; lines > max {
		t.Errorf("%d forged requests over %s wrote %d lines, want at most %d", forged, elapsed, lines, max)
	}
}
