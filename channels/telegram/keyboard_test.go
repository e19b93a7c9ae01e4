package telegram

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// newBareChannel is a channel whose handler is h, against a fresh fake.
func newBareChannel(t *testing.T, h broker.InboundHandler) *Channel {
	t.Helper()
	fake := telegramfake.New(testToken, botUser)
	t.Cleanup(fake.Close)
	t.Setenv(tokenEnv, testToken)
	c, err := New(Config{TokenEnv: tokenEnv, APIURL: fake.URL()}, h, channels.Options{})
	if err != nil {
		t.Fatalf("new: %v", err)
	}
	return c
}

func TestKeyboards(t *testing.T) {
	no := false
	now := time.Now()
	q := func(p ...broker.Prompt) *broker.Question {
		return &broker.Question{ID: "k7m2qx", Prompts: p, Status: broker.StatusPending, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	}
	two := []broker.Option{{Label: "A"}, {Label: "B"}}
	tests := []struct {
		name    string
		h       broker.InboundHandler
		q       *broker.Question
		want    [][]string // callback data by row
		hint    string
		notHint string
	}{
		{
			name: "no Other when other is false",
			h:    &brokertest.Inbox{},
			q:    q(broker.Prompt{Question: "Q?", Options: two, Other: &no}),
			want: [][]string{{"1o:k7m2qx.1/1:1"}, {"1o:k7m2qx.1/1:2"}, {"1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
			hint: "Tap a button, reply to this message with a number, or type /answer k7m2qx 1",
		},
		{
			name: "multi-select toggles, with a selection",
			h:    &brokertest.Inbox{},
			q: func() *broker.Question {
				x := q(broker.Prompt{Question: "Q?", Options: []broker.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}, MultiSelect: true})
				x.Selections = map[int][]int{0: {2, 0}}
				return x
			}(),
			want: [][]string{{"1t:k7m2qx.1/1:1"}, {"1t:k7m2qx.1/1:2"}, {"1t:k7m2qx.1/1:3"}, {"1d:k7m2qx.1/1:13", "1x:k7m2qx.1/1", "1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
			hint: "then Submit",
		},
		{
			name: "a held note rides on the option buttons",
			h:    &brokertest.Inbox{},
			q:    q(broker.Prompt{Question: "Held?", Options: two}),
			want: [][]string{{"1a:k7m2qx.1/1:1"}, {"1a:k7m2qx.1/1:2"}, {"1a:k7m2qx.1/1"}, {"1x:k7m2qx.1/1", "1r:k7m2qx.1/1", "1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
			hint: "Tap a button",
		},
		{
			name: "one box: Other or note… alone, no Note… beside it",
			h:    &brokertest.Inbox{},
			q:    q(broker.Prompt{Question: "Q?", Options: two}),
			want: [][]string{{"1o:k7m2qx.1/1:1"}, {"1o:k7m2qx.1/1:2"}, {"1x:k7m2qx.1/1", "1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
			hint: "Tap a button, reply to this message with a number or your own answer",
		},
		{
			name: "held text with no Other control is not offered",
			h:    &brokertest.Inbox{},
			q:    q(broker.Prompt{Question: "Held?", Options: two, Other: &no}),
			want: [][]string{{"1o:k7m2qx.1/1:1"}, {"1o:k7m2qx.1/1:2"}, {"1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
			hint: "Tap a button",
		},
		{
			name: "a held note rides on Submit",
			h:    &brokertest.Inbox{},
			q: func() *broker.Question {
				x := q(broker.Prompt{Question: "Held?", Options: []broker.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}, MultiSelect: true})
				x.Selections = map[int][]int{0: {2, 0}}
				return x
			}(),
			want: [][]string{{"1t:k7m2qx.1/1:1"}, {"1t:k7m2qx.1/1:2"}, {"1t:k7m2qx.1/1:3"}, {"1a:k7m2qx.1/1"}, {"1a:k7m2qx.1/1:13", "1x:k7m2qx.1/1", "1r:k7m2qx.1/1", "1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
			hint: "then Submit",
		},
		{
			name: "held text with nothing ticked: Submit stays plain",
			h:    &brokertest.Inbox{},
			q:    q(broker.Prompt{Question: "Held?", Options: []broker.Option{{Label: "A"}, {Label: "B"}, {Label: "C"}}, MultiSelect: true}),
			want: [][]string{{"1t:k7m2qx.1/1:1"}, {"1t:k7m2qx.1/1:2"}, {"1t:k7m2qx.1/1:3"}, {"1a:k7m2qx.1/1"}, {"1d:k7m2qx.1/1", "1x:k7m2qx.1/1", "1r:k7m2qx.1/1", "1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
			hint: "then Submit",
		},
		{
			name: "dialog, second prompt current",
			h:    &brokertest.Inbox{},
			q: func() *broker.Question {
				x := q(broker.Prompt{Question: "Q1?", Options: two}, broker.Prompt{Question: "Q2?", Options: two, Other: &no})
				x.Progress = []*broker.Answer{{Selected: []string{"A"}}, nil}
				return x
			}(),
			want: [][]string{{"1o:k7m2qx.2/2:1"}, {"1o:k7m2qx.2/2:2"}, {"1s:k7m2qx.2/2"}, {"1w:k7m2qx.1/2", "1c:k7m2qx.1/2"}},
			hint: "Now question 2 of 2.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newBareChannel(t, tt.h)
			if tt.q.Prompts[0].Question == "Held?" {
				c.notes.put(noteKey{tt.q.ID, 0}, "a note", time.Now())
			}
			v := c.render(tt.q)
			var got [][]string
			for _, row := range v.keyboard {
				var r []string
				for _, b := range row {
					r = append(r, *b.CallbackData)
				}
				got = append(got, r)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("keyboard %v, want %v", got, tt.want)
			}
			text := strings.NewReplacer("<code>", "", "</code>", "").Replace(v.text)
			if !strings.Contains(text, tt.hint) || (tt.notHint != "" && strings.Contains(text, tt.notHint)) {
				t.Errorf("text:\n%s", v.text)
			}
		})
	}
}

// TestBiggestQuestionButtonsFit posts the biggest question the broker
// takes (4 prompts of 4 options with the longest labels, every text at
// its limit) at each of its steps: each prompt current, multi-select
// prompts with every option ticked, with and without a held note. No
// button is left out, every button's data fits Telegram's 64 bytes and
// decodes as a step, and the fake Bot API, which refuses longer data or
// text, takes every message.
func TestBiggestQuestionButtonsFit(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	label := func(p, o int) string { // 60 characters in 5 words, the most a label takes
		w := strings.Repeat("w", 11)
		return fmt.Sprintf("%s %s %s %s %d%d%s", w, w, w, w, p, o, strings.Repeat("x", 10))
	}
	var req broker.AskRequest
	req.Context = strings.Repeat("語", broker.MaxContextChars)
	for p := range broker.MaxPrompts {
		pr := broker.Prompt{Question: fmt.Sprint(p) + strings.Repeat("問", broker.MaxQuestionChars-1), Header: strings.Repeat("見", broker.MaxHeaderChars), MultiSelect: p%2 == 1}
		for o := range broker.MaxOptions {
			pr.Options = append(pr.Options, broker.Option{Label: label(p, o), Description: strings.Repeat("説", broker.MaxDescriptionChar)})
		}
		req.Questions = append(req.Questions, pr)
	}
	asked, _ := e.ask(&req, team)
	if n := len(asked.Prompts[0].Options[0].Label); n != 60 {
		t.Fatalf("the longest label is %d characters, want 60", n)
	}
	all := []int{0, 1, 2, 3}
	for cur := range broker.MaxPrompts {
		for _, note := range []bool{false, true} {
			q := *asked
			q.Progress = make([]*broker.Answer, len(q.Prompts))
			for i := range cur {
				q.Progress[i] = &broker.Answer{Selected: []string{q.Prompts[i].Options[0].Label}}
			}
			q.Selections = map[int][]int{cur: all}
			e.ch.notes = newHeldNotes()
			if note {
				e.ch.notes.put(noteKey{q.ID, cur}, "a note", time.Now())
			}
			before := len(e.fake.BotMessages(team.ID))
			if _, err := e.ch.Post(e.ctx, &q, chatID(team)); err != nil {
				t.Fatalf("prompt %d (note %v): post: %v", cur+1, note, err)
			}
			msgs := e.fake.BotMessages(team.ID)
			if len(msgs) == before {
				t.Fatalf("prompt %d (note %v): nothing posted", cur+1, note)
			}
			m := msgs[before]
			n := 0
			for text, data := range buttons(m) {
				n++
				s, err := broker.DecodeStep(data)
				if len(data) > maxCallbackData || len(data) > broker.MaxStepData || err != nil || s.Legacy != "" {
					t.Errorf("prompt %d (note %v): button %q carries %q (%d bytes): %v", cur+1, note, text, data, len(data), err)
				}
			}
			// The options, Submit (multi-select), Other, Skip, Not ready
			// and Decline; with held text, Send as my answer and Drop
			// note too.
			want := broker.MaxOptions + 4
			if q.Prompts[cur].MultiSelect {
				want++
			}
			if note {
				want += 2
			}
			if n != want || strings.Contains(m.Text, "could not be shown") {
				t.Errorf("prompt %d (note %v): %d buttons, want %d; text ends:\n%s", cur+1, note, n, want, m.Text[max(0, len(m.Text)-300):])
			}
		}
	}
	if strings.Contains(e.logs.String(), "button left out") {
		t.Errorf("a button was left out:\n%s", e.logs.String())
	}
	if !strings.Contains(e.logs.String(), "question text shortened") || strings.Contains(e.logs.String(), "still over") {
		t.Errorf("the biggest question did not fit in one shortening of its card:\n%s", e.logs.String())
	}
}
