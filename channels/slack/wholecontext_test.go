package slack

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
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

// askPosted asks req and returns the question with its copy in general,
// once the bridge has recorded the copy as posted by one attempt.
func (e *brokerEnv) askPosted(t *testing.T, req *broker.AskRequest) (*broker.Question, slackfake.Message) {
	t.Helper()
	q, _, err := e.b.Ask(context.Background(), "agent", req)
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	ref := channeltest.WaitCopy(t, e.st, q.ID, broker.Target{Channel: Name, Chat: general})
	var copies []broker.Copy
	channeltest.Eventually(t, "the copy recorded as posted", func() bool {
		copies, err = e.b.Copies(context.Background(), q.ID)
		return err == nil && len(copies) == 1 && copies[0].State == broker.CopyPosted
	})
	if copies[0].Attempts != 1 {
		t.Errorf("the copy took %d attempts, want 1", copies[0].Attempts)
	}
	ch, ts := locate(ref)
	m, ok := e.fake.Message(ch, ts)
	if !ok {
		t.Fatalf("the fake has no message %s in %s", ts, ch)
	}
	top := 0
	for _, x := range e.fake.Messages() {
		if x.Channel == general && x.ThreadTS == "" {
			top++
		}
	}
	if top != 1 {
		t.Errorf("%d messages in the channel, want the question alone", top)
	}
	return q, m
}

// threadOf returns the replies in m's thread, oldest first.
func (e *brokerEnv) threadOf(m slackfake.Message) []slackfake.Message {
	var out []slackfake.Message
	for _, x := range e.fake.Messages() {
		if x.Channel == m.Channel && x.ThreadTS == m.TS {
			out = append(out, x)
		}
	}
	return out
}

// contextBlock returns the text of the copy's context block.
func contextBlock(t *testing.T, q *broker.Question, m slackfake.Message) string {
	t.Helper()
	for _, s := range textObjects(t, m.Blocks, "mrkdwn") {
		if strings.HasPrefix(unescapeMessage(s), q.Context[:40]) {
			return s
		}
	}
	t.Fatalf("the copy shows no context")
	return ""
}

func TestShortenedContextFollowsInThread(t *testing.T) {
	tests := []struct {
		name    string
		ctx     string
		replies int
		// plain is set when the context holds ``` and goes without a
		// code block.
		plain bool
	}{
		{"a long command", channeltest.HookContext(broker.MaxContextChars), 2, false},
		{"a context that fits one reply", strings.Repeat("ls -la \"$(pwd)\"/src\n", 3500/20), 1, false},
		{"a context holding a code fence", "cat > README.md <<'EOF'\n```go\n" + channeltest.HookContext(3900) + "\n```\nEOF", 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newBrokerEnv(t, broker.Route{})
			q, m := e.askPosted(t, approval(tt.ctx))
			if shown := contextBlock(t, q, m); !strings.HasSuffix(shown, broker.ContextCutMark) {
				t.Errorf("the context block does not say where the whole text is: …%s", shown[len(shown)-80:])
			}
			replies := e.threadOf(m)
			if len(replies) != tt.replies {
				t.Fatalf("%d replies in the thread, want %d", len(replies), tt.replies)
			}
			var whole strings.Builder
			for i, r := range replies {
				if n := utf8.RuneCountInString(r.Text); n > maxThreadText {
					t.Errorf("reply %d is %d characters, over Slack's %d", i+1, n, maxThreadText)
				}
				if r.Plain != tt.plain {
					t.Errorf("reply %d posted with formatting off = %v, want %v", i+1, r.Plain, tt.plain)
				}
				head, body, _ := strings.Cut(r.Text, "\n")
				if !strings.Contains(head, q.ID) {
					t.Errorf("reply %d does not name the question: %q", i+1, head)
				}
				if !tt.plain {
					inner, opened := strings.CutPrefix(body, fence+"\n")
					inner, closed := strings.CutSuffix(inner, "\n"+fence)
					if !opened || !closed || strings.Contains(inner, fence) {
						t.Fatalf("reply %d is not one code block:\n%s", i+1, r.Text)
					}
					body = inner
				}
				if i < len(replies)-1 && !strings.HasSuffix(body, "\n") {
					t.Errorf("reply %d ends mid-line: …%q", i+1, body[len(body)-40:])
				}
				whole.WriteString(body)
			}
			if got := unescapeMessage(whole.String()); got != q.Context {
				t.Errorf("the thread holds %d bytes that are not the context's %d", len(got), len(q.Context))
			}
		})
	}
}

func TestWholeContextOnlyWhenShortened(t *testing.T) {
	e := newBrokerEnv(t, broker.Route{})
	ctx := channeltest.HookContext(2400)
	if n := utf8.RuneCountInString(escapeMrkdwn(ctx)); n > maxContextText {
		t.Fatalf("the context is %d characters escaped, over the block's %d: nothing to test", n, maxContextText)
	}
	q, m := e.askPosted(t, approval(ctx))
	if shown := contextBlock(t, q, m); unescapeMessage(shown) != q.Context {
		t.Errorf("the copy does not show the whole context")
	}
	if r := e.threadOf(m); len(r) != 0 {
		t.Errorf("%d replies under a copy that shows its whole context, want none", len(r))
	}
	if n := e.fake.Calls("chat.postMessage"); n != 1 {
		t.Errorf("chat.postMessage called %d times, want 1", n)
	}
}

func TestWholeContextFailureLeavesTheQuestionPosted(t *testing.T) {
	tests := []struct {
		name   string
		status int
		code   string
		// logged is what the warning says of the error.
		logged string
	}{
		{"a server error", http.StatusInternalServerError, "fatal_error", "500 Internal Server Error"},
		{"a refusal", http.StatusOK, "msg_too_long", "msg_too_long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newBrokerEnv(t, broker.Route{})
			e.fake.FailThreadReplies(tt.status, tt.code)
			q, m := e.askPosted(t, approval(channeltest.HookContext(broker.MaxContextChars)))
			if r := e.threadOf(m); len(r) != 0 {
				t.Errorf("%d replies, want none: Slack refused them", len(r))
			}
			if n := e.fake.Calls("chat.postMessage"); n != 2 {
				t.Errorf("chat.postMessage called %d times, want 2 (the question, the first reply)", n)
			}
			warned := false
			for _, line := range strings.Split(e.logs.String(), "\n") {
				warned = warned || strings.Contains(line, "level=WARN") && strings.Contains(line, "whole context") &&
					strings.Contains(line, "question_id="+q.ID) && strings.Contains(line, "channel=slack") &&
					strings.Contains(line, "chat="+general) && strings.Contains(line, tt.logged)
			}
			if !warned {
				t.Errorf("no warning names the question, channel, chat and error:\n%s", e.logs.String())
			}
		})
	}
}

func TestSplitEscaped(t *testing.T) {
	tests := []struct {
		name string
		in   string
		room int
		want []string
	}{
		{"fits", "a<b\nc", 20, []string{"a&lt;b\nc"}},
		{"after the last line break", "one\ntwo\nthree", 9, []string{"one\ntwo\n", "three"}},
		{"a line longer than the room", "abcdefgh", 3, []string{"abc", "def", "gh"}},
		{"never inside an escape", "ab&c", 6, []string{"ab", "&amp;c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitEscaped(tt.in, tt.room)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("splitEscaped(%q, %d) = %q, want %q", tt.in, tt.room, got, tt.want)
			}
			if unescapeMessage(strings.Join(got, "")) != tt.in {
				t.Errorf("the pieces do not make %q again", tt.in)
			}
		})
	}
}
