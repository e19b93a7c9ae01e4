package slack

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
)

var (
	screenshot = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{9}, 200)...)
	crashLog   = []byte("panic: runtime error: index out of range\n")
)

// TestFilesInThread: a file shared in the question's thread answers it;
// the bot downloads it from url_private_download with its token.
func TestFilesInThread(t *testing.T) {
	tests := []struct {
		name   string
		mode   string
		text   string
		files  func(f *slackfake.Server) []slackfake.File
		custom string
		reply  string
		want   [][]byte
	}{
		{"screenshot alone, socket mode", ModeSocket, "", func(f *slackfake.Server) []slackfake.File {
			return []slackfake.File{f.ShareFile("Screenshot 2026-11-29.png", "image/png", screenshot, 0)}
		}, "[Image #1]", "Recorded: “[Image #1]”", [][]byte{screenshot}},
		{"text with two files, HTTP mode", ModeHTTP, "both broken", func(f *slackfake.Server) []slackfake.File {
			return []slackfake.File{f.ShareFile("a.png", "image/png", screenshot, 0), f.ShareFile("crash.log", "text/plain", crashLog, 0)}
		}, "both broken [Image #1] [File #2: crash.log]", "Recorded: “both broken [Image #1] [File #2: crash.log]”", [][]byte{screenshot, crashLog}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newBrokerEnvMode(t, tc.mode, broker.Route{})
			q, m := e.ask(t, nil)
			got := e.wait(q.ID)
			ev := slackfake.FileShareEvent(slackfake.MessageOpts{User: ana, Channel: general, Text: tc.text, ThreadTS: m.TS}, tc.files(e.fake)...)
			e.deliver(t, ev)
			waitEphemeral(t, e.fake, ana.ID, tc.reply)
			res := <-got
			a := res.Answers["Which database?"]
			if a.CustomText != tc.custom || len(a.Attachments) != len(tc.want) {
				t.Fatalf("answer %+v, want custom_text %q", a, tc.custom)
			}
			for i, want := range tc.want {
				f, err := e.b.Attachment(context.Background(), "agent", q.ID, a.Attachments[i].N)
				if err != nil || !bytes.Equal(f.Data, want) {
					t.Fatalf("file %d = %v, %v; want the bytes shared", i+1, f, err)
				}
			}
			if d := e.fake.Downloads(); len(d) != len(tc.want) || !strings.Contains(d[0], "/download/") {
				t.Errorf("downloads %v, want each file once from url_private_download", d)
			}
		})
	}
}

// TestFilesRefusedInSlack: what is not kept gets an ephemeral reply that
// says why, and nothing is recorded.
func TestFilesRefusedInSlack(t *testing.T) {
	tests := []struct {
		name      string
		file      func(f *slackfake.Server) slackfake.File
		reply     string
		downloads int
	}{
		{"declared too large", func(f *slackfake.Server) slackfake.File {
			return f.ShareFile("trace.log", "text/plain", crashLog, 40<<20)
		}, "“trace.log” is 40 MiB; files may be at most 10 MiB each. Nothing was recorded.", 0},
		{"a spreadsheet", func(f *slackfake.Server) slackfake.File {
			return f.ShareFile("q3.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", []byte("PK\x03\x04\x14\x00\x06\x00"), 0)
		}, "“q3.xlsx” is not a file type accepted here", 1},
		{"an address off Slack's file host", func(f *slackfake.Server) slackfake.File {
			file := f.ShareFile("a.png", "image/png", screenshot, 0)
			file.URLPrivateDownload = "https://files.example.org/steal"
			return file
		}, "Could not download “a.png” from slack; please send it again.", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newBrokerEnv(t, broker.Route{})
			q, m := e.ask(t, nil)
			e.deliver(t, slackfake.FileShareEvent(slackfake.MessageOpts{User: ana, Channel: general, ThreadTS: m.TS}, tc.file(e.fake)))
			waitEphemeral(t, e.fake, ana.ID, tc.reply)
			if cur, _ := e.b.Get(context.Background(), "agent", q.ID); cur.Status != broker.StatusPending {
				t.Fatalf("question is %s, want pending", cur.Status)
			}
			if d := e.fake.Downloads(); len(d) != tc.downloads {
				t.Errorf("downloads %v, want %d", d, tc.downloads)
			}
		})
	}
}

// deliver sends an Events API payload the way the channel's mode
// receives it.
func (e *brokerEnv) deliver(t *testing.T, payload map[string]any) {
	t.Helper()
	if e.ch.cfg.Mode == ModeSocket {
		e.send(t, "events_api", payload)
		return
	}
	srv := httptest.NewServer(e.ch.Handler())
	defer srv.Close()
	body := mustJSON(t, payload)
	if code, out := deliver(t, srv, PathEvents, "application/json", body, slackfake.Sign(testSecret, time.Now(), body)); code != http.StatusOK {
		t.Fatalf("event delivery: %d %s", code, out)
	}
}
