package telegram

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

// approval is a question as the approval hook asks it, with ctx as its
// context.
func approval(ctx string) *broker.AskRequest {
	return &broker.AskRequest{
		Header:   "Claude Code",
		Question: "⚠ shortened: 3,512 more characters — the full command is attached below\nAllow Bash?\nfor f in $(git ls-files '*.go' …",
		Options:  []broker.Option{{Label: "Allow"}, {Label: "Deny"}},
		Context:  ctx,
	}
}

// replies returns the bot's messages in chat that reply to message id.
func (e *env) replies(chat int64, id int) []telegramfake.Message {
	var out []telegramfake.Message
	for _, m := range e.fake.BotMessages(chat) {
		if m.ReplyTo == id {
			out = append(out, m)
		}
	}
	return out
}

// postedOnce checks that q's copy in chat was posted by one attempt, as
// message m, and that m is the only question message there.
func (e *env) postedOnce(q *broker.Question, chat telegramfake.Chat, m telegramfake.Message) {
	e.t.Helper()
	var copies []broker.Copy
	channeltest.Eventually(e.t, "the copy recorded as posted", func() bool {
		var err error
		copies, err = e.b.Copies(e.ctx, q.ID)
		return err == nil && len(copies) == 1 && copies[0].State == broker.CopyPosted
	})
	if c := copies[0]; c.Attempts != 1 || c.MessageID != strconv.Itoa(m.ID) {
		e.t.Errorf("the copy took %d attempts as message %s, want 1 as message %d", c.Attempts, c.MessageID, m.ID)
	}
	if n := len(e.questionMessages(chat.ID)); n != 1 {
		e.t.Errorf("%d question messages in %s, want 1", n, chat.Title)
	}
}

func TestShortenedContextFollowsWhole(t *testing.T) {
	tests := []struct {
		name string
		ctx  string
		// file is set when the whole context comes as context.txt, else
		// it comes in a <pre> block of a message.
		file bool
	}{
		{"a long command fits a message", channeltest.HookContext(broker.MaxContextChars), false},
		{"a context past 4096 UTF-16 units goes as a file", strings.Repeat("🚀 $(x) <&>", broker.MaxContextChars/10), true},
		{"a context ending in a line break goes as a file", channeltest.HookContext(broker.MaxContextChars-1) + "\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{noRun: true})
			q, m := e.ask(approval(tt.ctx), team)
			if q.Context != tt.ctx {
				t.Fatalf("the broker changed the context")
			}
			if !strings.Contains(m.Text, broker.ContextCutMark) {
				t.Errorf("the question does not say where the whole context is:\n%s", m.Text)
			}
			if strings.Contains(m.Text, tt.ctx) {
				t.Fatalf("the question shows the whole context: nothing to test")
			}
			e.postedOnce(q, team, m)
			rs := e.replies(team.ID, m.ID)
			if len(rs) != 1 {
				t.Fatalf("%d replies to the question, want 1", len(rs))
			}
			r := rs[0]
			if tt.file {
				d := r.Document
				if d == nil {
					t.Fatalf("the reply is no document: %q", r.Text)
				}
				if d.FileName != "context.txt" || d.MimeType != "text/plain" {
					t.Errorf("document %q of type %q, want context.txt, text/plain", d.FileName, d.MimeType)
				}
				if string(d.Data) != tt.ctx {
					t.Errorf("the document holds %d bytes that are not the context's %d", len(d.Data), len(tt.ctx))
				}
				if !strings.Contains(r.Caption, q.ID) {
					t.Errorf("caption %q does not name the question", r.Caption)
				}
				return
			}
			if r.Document != nil {
				t.Fatalf("the context came as a file, want a message")
			}
			pre, ok := entityText(r, "pre")
			if !ok || pre != tt.ctx {
				t.Errorf("the reply's <pre> block is not the context byte for byte; the reply reads:\n%s", r.Text)
			}
			if !strings.Contains(r.Text, q.ID) {
				t.Errorf("the reply does not name the question: %q", r.Text[:80])
			}
		})
	}
}

// entityText returns the text of m's first entity of type typ.
func entityText(m telegramfake.Message, typ string) (string, bool) {
	units := utf16.Encode([]rune(m.Text))
	for _, en := range m.Entities {
		if en.Type == typ && en.Offset+en.Length <= len(units) {
			return string(utf16.Decode(units[en.Offset : en.Offset+en.Length])), true
		}
	}
	return "", false
}

func TestWholeContextOnlyWhenShortened(t *testing.T) {
	e := newEnv(t, envOptions{noRun: true})
	// The longest context that still fits beside this question.
	req := approval(channeltest.HookContext(3000))
	q, m := e.ask(req, team)
	if !strings.Contains(m.Text, q.Context) || strings.Contains(m.Text, "shortened: the whole text") {
		t.Fatalf("the question does not show its whole context:\n%s", m.Text)
	}
	e.postedOnce(q, team, m)
	if rs := e.replies(team.ID, m.ID); len(rs) != 0 {
		t.Errorf("%d replies to a question that shows its whole context, want none", len(rs))
	}
	if n := len(e.fake.Calls("sendDocument")); n != 0 {
		t.Errorf("%d documents sent, want none", n)
	}
}

func TestWholeContextFailureLeavesTheQuestionPosted(t *testing.T) {
	tests := []struct {
		name, method string
		ctx          string
		fail         telegramfake.Failure
	}{
		{"the reply message fails", "sendMessage", channeltest.HookContext(broker.MaxContextChars),
			telegramfake.Failure{Code: 500, Description: "Internal Server Error"}},
		{"the document is refused", "sendDocument", strings.Repeat("🚀", broker.MaxContextChars),
			telegramfake.Failure{Code: 400, Description: "Bad Request: message to be replied not found"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, envOptions{noRun: true})
			e.fake.FailNextReply(tt.method, tt.fail)
			q, m := e.ask(approval(tt.ctx), team)
			e.postedOnce(q, team, m)
			if rs := e.replies(team.ID, m.ID); len(rs) != 0 {
				t.Errorf("%d replies, want none: the platform refused it", len(rs))
			}
			calls := 0
			for _, c := range e.fake.Calls(tt.method) {
				if c.Params.Get("reply_to_message_id") == strconv.Itoa(m.ID) {
					calls++
				}
			}
			if calls != 1 {
				t.Errorf("%s called %d times for the reply, want 1", tt.method, calls)
			}
			warned := false
			for _, line := range strings.Split(e.logs.String(), "\n") {
				warned = warned || strings.Contains(line, "level=WARN") && strings.Contains(line, "whole context") &&
					strings.Contains(line, "question_id="+q.ID) && strings.Contains(line, "channel=telegram") &&
					strings.Contains(line, "chat="+chatID(team))
			}
			if !warned {
				t.Errorf("no warning names the question, channel and chat:\n%s", e.logs.String())
			}
		})
	}
}
