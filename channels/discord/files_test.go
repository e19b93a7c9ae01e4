package discord

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/discord/discordfake"
)

var (
	shotPNG = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{3}, 150)...)
	appLog  = []byte("2026-11-29T14:00:01Z ERROR pool exhausted\n")
)

// shown is markdown as Discord shows it: a backslash escapes the
// character after it.
func shown(s string) string { return backslashed.ReplaceAllString(s, "$1") }

var backslashed = regexp.MustCompile(`\\(.)`)

// botReplyTo waits for the bot's reply to message said and returns it as
// Discord shows it.
func (w *world) botReplyTo(t *testing.T, said string) string {
	t.Helper()
	var text string
	err := discordfake.Until(testCtx(t), func() bool {
		for _, m := range w.fake.Messages(w.chat) {
			if m.Author.Bot && m.Reference != nil && m.Reference.MessageID == said {
				text = shown(m.Content)
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("the bot never replied to message %s", said)
	}
	return text
}

// TestAttachmentsAnswer: attachments on a reply to the question message
// answer it; the bot fetches them from the CDN without its token.
func TestAttachmentsAnswer(t *testing.T) {
	w := newWorld(t, nil)
	tests := []struct {
		name   string
		text   string
		files  []discordfake.File
		custom string
		reply  string
	}{
		{"a screenshot alone", "", []discordfake.File{{Name: "screen.png", ContentType: "image/png", Data: shotPNG}},
			"[Image #1]", "Recorded: “[Image #1]”"},
		{"text, a picture and a log", "both attached", []discordfake.File{
			{Name: "screen.png", ContentType: "image/png", Data: shotPNG},
			{Name: "app.log", ContentType: "text/plain; charset=utf-8", Data: appLog}},
			"both attached [Image #1] [File #2: app.log]", "Recorded: “both attached [Image #1] [File #2: app.log]”"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(w.fake.Downloads())
			a := w.ask(t, dbRequest())
			said := w.fake.SayWithFiles(w.ana, w.chat, tc.text, a.msg.ID, tc.files...)
			q := a.done(t)
			got := q.Answers[q.Prompts[0].Question]
			if got.CustomText != tc.custom || len(got.Attachments) != len(tc.files) {
				t.Fatalf("answer %+v, want custom_text %q", got, tc.custom)
			}
			for i, f := range tc.files {
				stored, err := w.b.Attachment(testCtx(t), "agent", q.ID, got.Attachments[i].N)
				if err != nil || !bytes.Equal(stored.Data, f.Data) {
					t.Fatalf("file %d = %v, %v; want the bytes attached", i+1, stored, err)
				}
			}
			if r := w.botReplyTo(t, said); r != tc.reply {
				t.Errorf("reply %q, want %q", r, tc.reply)
			}
			for _, d := range w.fake.Downloads()[before:] {
				if !strings.HasSuffix(d, "auth=false") {
					t.Errorf("download %s carried an Authorization header to the CDN", d)
				}
			}
		})
	}
}

// TestAttachmentsRefused: what is not kept gets a reply saying why, and
// nothing is recorded.
func TestAttachmentsRefused(t *testing.T) {
	w := newWorld(t, nil)
	tests := []struct {
		name      string
		file      discordfake.File
		reply     string
		downloads int
	}{
		{"declared too large", discordfake.File{Name: "dump.log", ContentType: "text/plain", Data: appLog, Size: 24 << 20},
			"“dump.log” is 24 MiB; files may be at most 10 MiB each. Nothing was recorded.", 0},
		{"an executable called a picture", discordfake.File{Name: "cat.png", ContentType: "image/png", Data: []byte("\x7fELF\x02\x01\x01\x00")},
			"“cat.png” is not a file type accepted here (accepted: " + broker.FileRule + "). Nothing was recorded.", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := len(w.fake.Downloads())
			a := w.ask(t, dbRequest())
			said := w.fake.SayWithFiles(w.ana, w.chat, "", a.msg.ID, tc.file)
			if r := w.botReplyTo(t, said); r != tc.reply {
				t.Fatalf("reply %q, want %q", r, tc.reply)
			}
			if s := w.status(t, a.q.ID); s != broker.StatusPending {
				t.Fatalf("question is %s, want pending", s)
			}
			if n := len(w.fake.Downloads()) - before; n != tc.downloads {
				t.Errorf("%d downloads, want %d", n, tc.downloads)
			}
		})
	}
}
