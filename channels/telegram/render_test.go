package telegram

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

func TestLongQuestionIsShortenedVisibly(t *testing.T) {
	long := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	opts := func() []broker.Option {
		var o []broker.Option
		for _, l := range []string{"Alpha", "Beta", "Gamma", "Delta"} {
			o = append(o, broker.Option{Label: l, Description: long("<desc>", 300/7)})
		}
		return o
	}
	tests := []struct {
		name string
		req  *broker.AskRequest
		// kept must still be shown in full.
		kept []string
	}{
		{
			name: "long context",
			req:  &broker.AskRequest{Question: "Which one?", Options: opts(), Context: long("context&", 4000/9)},
			kept: []string{"Which one?", "1. Alpha — <desc>", "4. Delta"},
		},
		{
			name: "everything long, four prompts",
			req: &broker.AskRequest{Context: long("ctx", 1000), Questions: []broker.Prompt{
				{Question: long("q1🚀", 400), Header: "One", Options: opts()},
				{Question: long("q2", 600), Header: "Two", Options: opts()},
				{Question: long("q3", 600), Header: "Three", Options: opts()},
				{Question: long("q4", 600), Header: "Four"},
			}},
			kept: []string{"4 questions", "1. Alpha", "4. Delta", "🏷 Four"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{noRun: true})
			_, m := e.ask(tt.req, team) // the fake refuses text over 4096
			if n := len(utf16.Encode([]rune(m.Text))); n > maxText {
				t.Errorf("text is %d long", n)
			}
			if !strings.Contains(m.Text, strings.TrimSuffix(shortenedMark, ")")) {
				t.Errorf("shortening is not visible")
			}
			for _, k := range tt.kept {
				if !strings.Contains(m.Text, k) {
					t.Errorf("lost %q", k)
				}
			}
			if len(m.Keyboard) == 0 {
				t.Error("the keyboard went missing")
			}
		})
	}
}

func TestVisibleLenMatchesTelegram(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	_, m := e.ask(&broker.AskRequest{Question: "Ünïcode 🚀 & <tags> \"quotes\"", Header: "H&<>", Context: "a\nb"}, team)
	if got, want := visibleLen(m.HTML), len(utf16.Encode([]rune(m.Text))); got != want {
		t.Errorf("visibleLen %d, Telegram counts %d", got, want)
	}
}

func TestToast(t *testing.T) {
	tests := []struct {
		in   string
		want int // UTF-16 length of the toast
		cut  bool
	}{
		{"Recorded: Postgres", 18, false},
		{strings.Repeat("a", 200), 200, false},
		{strings.Repeat("a", 201), 200, true},
		{strings.Repeat("🚀", 150), 199, true},
	}
	for _, tt := range tests {
		got := toast(tt.in)
		if n := len(utf16.Encode([]rune(got))); n > maxToast || n != tt.want {
			t.Errorf("toast of %d runes is %d long, want %d", len([]rune(tt.in)), n, tt.want)
		}
		if strings.HasSuffix(got, "…") != tt.cut {
			t.Errorf("cut shown = %v, want %v", strings.HasSuffix(got, "…"), tt.cut)
		}
	}
}

func TestNoOptionsPromptOffersAnswerButton(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	q, m := e.ask(&broker.AskRequest{Question: "Anything else?"}, team)
	want := map[string]string{"Answer…": stepData(broker.StepOther, q.Ref(0)), "Skip": stepData(broker.StepSkip, q.Ref(0)),
		"Not ready": stepData(broker.StepNotReady, q.Ref(0)), "Decline": stepData(broker.StepDecline, q.Ref(0))}
	if got := buttons(m); !reflect.DeepEqual(got, want) {
		t.Errorf("buttons %v, want %v (Answer…: there is no option for a note)", got, want)
	}
	if !strings.Contains(m.Text, "Reply to this message with your answer, or type /answer "+q.ID+" other <your answer>") {
		t.Errorf("hint missing:\n%s", m.Text)
	}
}

// TestStateLineFromTheCard: the copy's state line is the card's, as on
// every channel: the expiry names the day when it is not today, and the
// other channels the question went to are named.
func TestStateLineFromTheCard(t *testing.T) {
	c := newBareChannel(t, &brokertest.Inbox{})
	now := time.Date(2026, 12, 3, 14, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	q := &broker.Question{ID: "k7m2qx", Status: broker.StatusPending, CreatedAt: now, ExpiresAt: now.Add(20 * time.Hour),
		Prompts: []broker.Prompt{{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}, Default: broker.StringList{"SQLite"}}},
		Targets: []broker.Target{{Channel: Name, Chat: "1"}, {Channel: "web"}, {Channel: "slack", Chat: "C1"}}}
	if got, want := c.render(q).text, "\n⏳ Expires Fri 4 Dec 10:00 UTC · default: SQLite · also in slack, web\n"; !strings.Contains(got, want) {
		t.Errorf("text lacks %q:\n%s", want, got)
	}
}

// TestLongOutcomeFits: the resolved copy of a dialog whose questions fill
// more than a message keeps the outcome whole and cuts the questions,
// visibly.
func TestLongOutcomeFits(t *testing.T) {
	e := newEnv(t, envOptions{})
	req := &broker.AskRequest{}
	for p := range broker.MaxPrompts {
		req.Questions = append(req.Questions, broker.Prompt{Question: string(rune('A'+p)) + strings.Repeat("q", broker.MaxQuestionChars-1),
			Options: []broker.Option{{Label: "Yes"}, {Label: "No"}}})
	}
	q, m := e.ask(req, team)
	reason := strings.Repeat("r", broker.MaxReasonChars)
	if r := e.b.HandleInbound(e.ctx, broker.Inbound{Channel: Name, Chat: chatID(team), User: "42", Name: "@ana", Text: "/decline " + q.ID + " " + reason}); !r.OK {
		t.Fatalf("decline: %s", r.Text)
	}
	edited := e.waitMessage(team.ID, m.ID, "showed the decline", func(m telegramfake.Message) bool {
		return strings.Contains(m.Text, "Declined by @ana at ")
	})
	if !strings.HasSuffix(edited.Text, ": "+reason) || !strings.Contains(edited.Text, shortenedMark) || !strings.Contains(edited.Text, "Dqqq") {
		t.Errorf("the resolved copy reads:\n%s", edited.Text)
	}
}
