package telegram

import (
	"bytes"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/telegram/telegramfake"
)

var (
	photoJPEG = append([]byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01"), bytes.Repeat([]byte{0x55}, 300)...)
	buildLog  = []byte("14:00:01 ERROR build failed: missing go.sum entry\n")
)

// TestAnswerWithFiles: people answer with a photo or a document sent as a
// reply to the question; the bot downloads it (getFile, then the file
// path on the configured Bot API server) and the agent gets it.
func TestAnswerWithFiles(t *testing.T) {
	tests := []struct {
		name    string
		mode    string
		send    func(e *env, q *broker.Question, m telegramfake.Message) int
		custom  string
		file    []byte
		fname   string
		ftype   string
		replyIs string
	}{
		{"photo as a reply, polling", "", func(e *env, q *broker.Question, m telegramfake.Message) int {
			return e.fake.SendPhoto(ana, team.ID, photoJPEG, "", m.ID)
		}, "[Image #1]", photoJPEG, "image.jpg", "image/jpeg", "Recorded: “[Image #1]”"},
		{"document with a caption, webhook", ModeWebhook, func(e *env, q *broker.Question, m telegramfake.Message) int {
			return e.fake.SendDocument(ana, team.ID, "build.log", "text/x-log", buildLog, 0, "none of these, see", m.ID)
		}, "none of these, see [File #1: build.log]", buildLog, "build.log", "text/plain", "Recorded: “none of these, see [File #1: build.log]”"},
		{"option number with a screenshot", "", func(e *env, q *broker.Question, m telegramfake.Message) int {
			return e.fake.SendPhoto(ana, team.ID, photoJPEG, "2", m.ID)
		}, "[Image #1]", photoJPEG, "image.jpg", "image/jpeg", "Recorded: SQLite (note: “[Image #1]”)"},
		{"photo into the Other box", "", func(e *env, q *broker.Question, m telegramfake.Message) int {
			e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
			msgs := e.fake.BotMessages(team.ID)
			return e.fake.SendPhoto(ana, team.ID, photoJPEG, "", msgs[len(msgs)-1].ID)
		}, "[Image #1]", photoJPEG, "image.jpg", "image/jpeg", "Recorded: “[Image #1]”"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{mode: tc.mode})
			q, m := e.ask(dbRequest(), team)
			mine := tc.send(e, q, m)
			if r := e.waitReply(team.ID, mine); r.Text != tc.replyIs {
				t.Fatalf("reply %q, want %q", r.Text, tc.replyIs)
			}
			got := e.waitResolved(q.ID)
			a := got.Answers[q.Prompts[0].Question]
			if a.CustomText != tc.custom || len(a.Attachments) != 1 {
				t.Fatalf("answer %+v, want custom_text %q and one file", a, tc.custom)
			}
			ref := a.Attachments[0]
			if ref.Name != tc.fname || ref.Type != tc.ftype {
				t.Errorf("file listed as %s %s, want %s %s", ref.Name, ref.Type, tc.fname, tc.ftype)
			}
			f, err := e.b.Attachment(e.ctx, "agent", q.ID, ref.N)
			if err != nil || !bytes.Equal(f.Data, tc.file) {
				t.Fatalf("stored file = %v, %v; want the bytes sent", f, err)
			}
			if d := e.fake.Downloads(); len(d) != 1 || !strings.HasPrefix(d[0], "photos/") && !strings.HasPrefix(d[0], "documents/") {
				t.Errorf("downloads %v, want the one full-size file", d)
			}
		})
	}
}

// TestFilesRefusedInTelegram: files the bridge does not keep get a reply
// that says why, nothing is recorded, and what need not be downloaded is
// not.
func TestFilesRefusedInTelegram(t *testing.T) {
	tests := []struct {
		name      string
		send      func(e *env, m telegramfake.Message) int
		reply     string
		downloads int
	}{
		{"declared over 10 MiB", func(e *env, m telegramfake.Message) int {
			return e.fake.SendDocument(ana, team.ID, "dump.log", "text/plain", buildLog, 15<<20, "", m.ID)
		}, "“dump.log” is 15 MiB; files may be at most 10 MiB each. Nothing was recorded.", 0},
		{"an archive", func(e *env, m telegramfake.Message) int {
			return e.fake.SendDocument(ana, team.ID, "logs.zip", "application/zip", []byte("PK\x03\x04\x14\x00rest"), 0, "", m.ID)
		}, "“logs.zip” is not a file type accepted here (accepted: " + broker.FileRule + "). Nothing was recorded.", 1},
		{"Telegram refuses the download", func(e *env, m telegramfake.Message) int {
			e.fake.FailNext("getFile", telegramfake.Failure{Code: 400, Description: "Bad Request: file is too big"})
			return e.fake.SendDocument(ana, team.ID, "huge.pdf", "application/pdf", []byte("%PDF-1.4"), 0, "", m.ID)
		}, "Could not download “huge.pdf” from telegram; please send it again.", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, envOptions{})
			q, m := e.ask(dbRequest(), team)
			mine := tc.send(e, m)
			if r := e.waitReply(team.ID, mine); r.Text != tc.reply {
				t.Fatalf("reply %q, want %q", r.Text, tc.reply)
			}
			if s := e.get(q.ID).Status; s != broker.StatusPending {
				t.Fatalf("question is %s, want pending", s)
			}
			if d := e.fake.Downloads(); len(d) != tc.downloads {
				t.Errorf("downloads %v, want %d", d, tc.downloads)
			}
		})
	}
	t.Run("from a chat the question was not posted to", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		e.ask(dbRequest(), team)
		mine := e.fake.SendPhoto(ana, outside.ID, photoJPEG, "", 0)
		e.fake.Send(ana, outside.ID, "/pending", 0)
		e.waitReply(outside.ID, mine+1)
		if len(e.fake.Calls("getFile")) != 0 || len(e.fake.Downloads()) != 0 {
			t.Fatalf("a photo in a chat without the question was fetched: %v", e.fake.Downloads())
		}
	})
	t.Run("photo alone in a group is chatter", func(t *testing.T) {
		e := newEnv(t, envOptions{})
		q, _ := e.ask(dbRequest(), team)
		mine := e.fake.SendPhoto(bob, team.ID, photoJPEG, "look at my cat", 0)
		e.fake.Send(ana, team.ID, "/pending", 0)
		e.waitReply(team.ID, mine+1)
		for _, m := range e.fake.BotMessages(team.ID) {
			if m.ReplyTo == mine {
				t.Fatalf("the bot answered a photo in the group: %q", m.Text)
			}
		}
		if len(e.fake.Calls("getFile")) != 0 || e.get(q.ID).Status != broker.StatusPending {
			t.Fatal("a photo that is no reply was fetched or recorded")
		}
	})
}

// TestFileInTheBoxWithTicks: a file cannot wait in memory for a tap, so
// a photo sent into the Other or note… box of a multi-select prompt is
// the answer at once, with the options ticked so far.
func TestFileInTheBoxWithTicks(t *testing.T) {
	e := newEnv(t, envOptions{})
	q, m := e.ask(regionsRequest(), team)
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["☐ 3. Asia"]))
	m = e.waitMessage(team.ID, m.ID, "showed the tick", func(m telegramfake.Message) bool { return buttons(m)["✓ 3. Asia"] != "" })
	e.waitCallback(e.fake.Tap(ana, team.ID, m.ID, buttons(m)["Other or note…"]))
	mine := e.fake.SendPhoto(ana, team.ID, photoJPEG, "the map", e.lastPrompt(team.ID, m.ID).ID)
	if r := e.waitReply(team.ID, mine); r.Text != "Recorded: Asia (note: “the map [Image #1]”)" {
		t.Errorf("reply %q", r.Text)
	}
	a := e.waitResolved(q.ID).Answers[q.Prompts[0].Question]
	if len(a.Selected) != 1 || a.Selected[0] != "Asia" || a.CustomText != "the map [Image #1]" || len(a.Attachments) != 1 {
		t.Errorf("answer %+v, want Asia with the map and its photo", a)
	}
}
