package telegram

import (
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
			want: [][]string{{"1a:k7m2qx.1/1:1"}, {"1a:k7m2qx.1/1:2"}, {"1x:k7m2qx.1/1", "1n:k7m2qx.1/1", "1r:k7m2qx.1/1", "1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
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
			want: [][]string{{"1t:k7m2qx.1/1:1"}, {"1t:k7m2qx.1/1:2"}, {"1t:k7m2qx.1/1:3"}, {"1a:k7m2qx.1/1:13", "1x:k7m2qx.1/1", "1r:k7m2qx.1/1", "1s:k7m2qx.1/1"}, {"1w:k7m2qx.1/1", "1c:k7m2qx.1/1"}},
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
