package discord

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/channels/channeltest"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
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

// askPosted asks req on the default route and returns the question with
// its copy, once the bridge has recorded the copy as posted by one
// attempt and the copy is the channel's one message that replies to
// nothing.
func (w *world) askPosted(t *testing.T, req *broker.AskRequest) (*broker.Question, *discordfake.Message) {
	t.Helper()
	q, _, err := w.b.Ask(testCtx(t), "agent", req)
	if err != nil {
		t.Fatalf("Ask: %v", err)
	}
	ref := channeltest.WaitCopy(t, w.st, q.ID, broker.Target{Channel: Name, Chat: w.chat})
	var copies []broker.Copy
	channeltest.Eventually(t, "the copy recorded as posted", func() bool {
		copies, err = w.b.Copies(testCtx(t), q.ID)
		return err == nil && len(copies) == 1 && copies[0].State == broker.CopyPosted
	})
	if copies[0].Attempts != 1 {
		t.Errorf("the copy took %d attempts, want 1", copies[0].Attempts)
	}
	top := 0
	for _, m := range w.fake.Messages(w.chat) {
		if m.Reference == nil {
			top++
		}
	}
	if top != 1 {
		t.Errorf("%d messages in the channel reply to nothing, want the question alone", top)
	}
	return q, w.fake.Message(ref.MessageID)
}

// repliesTo returns the messages in the env's channel that reply to id.
func (e *env) repliesTo(id string) []*discordfake.Message {
	var out []*discordfake.Message
	for _, m := range e.fake.Messages(e.chat) {
		if m.Reference != nil && m.Reference.MessageID == id {
			out = append(out, m)
		}
	}
	return out
}

// fetchAttachment fetches an attachment from its URL, as a person's client does.
func fetchAttachment(t *testing.T, a discordfake.Attachment) []byte {
	t.Helper()
	resp, err := http.Get(a.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("download %s: %d %v", a.Filename, resp.StatusCode, err)
	}
	return data
}

func TestShortenedContextFollowsAsAttachment(t *testing.T) {
	tests := []struct {
		name string
		ctx  string
	}{
		{"a long command", channeltest.HookContext(broker.MaxContextChars)},
		{"a context shorter than the content's limit, with the question beside it", channeltest.HookContext(1900)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, nil)
			q, m := w.askPosted(t, approval(tt.ctx))
			if !strings.Contains(m.Content, escape(broker.ContextCutMark)) {
				t.Errorf("the question does not say where the whole context is:\n%s", m.Content)
			}
			rs := w.repliesTo(m.ID)
			if len(rs) != 1 {
				t.Fatalf("%d replies to the question, want 1", len(rs))
			}
			r := rs[0]
			if !strings.Contains(r.Content, q.ID) {
				t.Errorf("the reply does not name the question: %q", r.Content)
			}
			if r.Reference.ChannelID != w.chat {
				t.Errorf("the reply references channel %s, want %s", r.Reference.ChannelID, w.chat)
			}
			if len(r.Attachments) != 1 || r.Attachments[0].Filename != "context.txt" || !strings.HasPrefix(r.Attachments[0].ContentType, "text/plain") {
				t.Fatalf("attachments %+v, want context.txt of text/plain", r.Attachments)
			}
			if got := fetchAttachment(t, r.Attachments[0]); string(got) != q.Context {
				t.Errorf("context.txt holds %d bytes that are not the context's %d", len(got), len(q.Context))
			}
			if r.AllowedMentions == nil || len(r.AllowedMentions.Parse) != 0 {
				t.Errorf("the reply may ping people: allowed_mentions %s", r.AllowedMentionsRaw)
			}
		})
	}
}

func TestWholeContextOnlyWhenShortened(t *testing.T) {
	w := newWorld(t, nil)
	q, m := w.askPosted(t, approval(channeltest.HookContext(400)))
	quoted := "> " + strings.Join(strings.Split(escape(q.Context), "\n"), "\n> ") + "\n"
	if !strings.Contains(m.Content, quoted) || strings.Contains(m.Content, escape(broker.ContextCutMark)) {
		t.Errorf("the question does not show its whole context:\n%s", m.Content)
	}
	if rs := w.repliesTo(m.ID); len(rs) != 0 {
		t.Errorf("%d replies to a question that shows its whole context, want none", len(rs))
	}
	for _, r := range w.fake.Requests() {
		if strings.Contains(string(r.Body), "payload_json") {
			t.Errorf("a multipart request was sent: %s %s", r.Method, r.Path)
		}
	}
}

func TestWholeContextFailureLeavesTheQuestionPosted(t *testing.T) {
	tests := []struct {
		name   string
		status int
		logged string
	}{
		{"a server error", http.StatusInternalServerError, "500"},
		{"no permission to attach files", http.StatusForbidden, "Missing Permissions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, nil)
			w.fake.FailUploads(tt.status)
			q, m := w.askPosted(t, approval(channeltest.HookContext(broker.MaxContextChars)))
			if rs := w.repliesTo(m.ID); len(rs) != 0 {
				t.Errorf("%d replies, want none: Discord refused them", len(rs))
			}
			warned := false
			for _, line := range strings.Split(w.logs.String(), "\n") {
				warned = warned || strings.Contains(line, "level=WARN") && strings.Contains(line, "whole context") &&
					strings.Contains(line, "question_id="+q.ID) && strings.Contains(line, "channel=discord") &&
					strings.Contains(line, "chat="+w.chat) && strings.Contains(line, tt.logged)
			}
			if !warned {
				t.Errorf("no warning names the question, channel, chat and error:\n%s", w.logs.String())
			}
		})
	}
}

func TestPostSentAgainRepliesOnce(t *testing.T) {
	e := newEnv(t, &brokertest.Inbox{}, nil)
	q := question("k7m2qx", dbPrompt())
	q.Context = channeltest.HookContext(broker.MaxContextChars)
	m, _ := e.post(t, q)
	// The outbox sends a post again when it never learnt the outcome of
	// the first one: the copy's nonce and the reply's give back both
	// messages instead of new ones.
	again, _ := e.post(t, q)
	if again.ID != m.ID {
		t.Errorf("the post sent again made message %s, want %s again", again.ID, m.ID)
	}
	if all := e.fake.Messages(e.chat); len(all) != 2 || len(e.repliesTo(m.ID)) != 1 {
		t.Errorf("%d messages and %d replies after the post was sent twice, want the question and one reply", len(all), len(e.repliesTo(m.ID)))
	}
}

func TestRenderSaysWhereTheWholeContextIs(t *testing.T) {
	long := dbPrompt()
	long.Question = strings.Repeat("why*", broker.MaxQuestionChars/4)
	tests := []struct {
		name   string
		prompt broker.Prompt
		ctx    string
		cut    bool
	}{
		{"a short context", dbPrompt(), "Directory: /srv", false},
		{"a long context", dbPrompt(), strings.Repeat("c", 1900), true},
		{"a long question leaves little room", long, strings.Repeat("c", 300), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := question("k7m2qx", tt.prompt)
			q.Context = tt.ctx
			m := render(q, at)
			if m.ContextCut != tt.cut {
				t.Errorf("ContextCut = %v, want %v", m.ContextCut, tt.cut)
			}
			if shown := strings.Contains(m.Content, escape(broker.ContextCutMark)); shown != tt.cut {
				t.Errorf("the note is shown = %v, want %v:\n%s", shown, tt.cut, m.Content)
			}
			if !tt.cut && !strings.Contains(m.Content, escape(tt.ctx)) {
				t.Errorf("the whole context is not shown:\n%s", m.Content)
			}
			if n := units(m.Content); n > maxContent {
				t.Errorf("content is %d characters, Discord allows %d", n, maxContent)
			}
		})
	}
}
