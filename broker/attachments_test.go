package broker_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/broker/outbox"
	"github.com/askbridge/askbridge/store/sqlite"
)

// Sample files: the first bytes make the type; the rest is filler.
var (
	pngData  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 200)...)
	jpegData = append([]byte("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00"), bytes.Repeat([]byte{1}, 100)...)
	logData  = []byte("2026-11-29 14:00:01 ERROR connection refused\n2026-11-29 14:00:02 retrying\n")
	pdfData  = []byte("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<<>>\nendobj\n")
	zipData  = []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00rest of a zip")
	htmlData = []byte("<!DOCTYPE html><html><script>alert(1)</script></html>")
)

func file(name, typ string, data []byte) broker.Attachment {
	return broker.Attachment{Name: name, Type: typ, Size: int64(len(data)), Data: data}
}

// fetched is an attachment the broker must download; the counter says
// whether it did.
func fetched(name string, size int64, data []byte, calls *int) broker.Attachment {
	return broker.Attachment{Name: name, Size: size, Fetch: func(_ context.Context, max int64) ([]byte, error) {
		*calls++
		if int64(len(data)) > max+1 {
			return data[:max+1], nil
		}
		return data, nil
	}}
}

func withFiles(chat, text, id string, files ...broker.Attachment) broker.Inbound {
	i := in(chat, "ana", text)
	i.QuestionID = id
	i.Attachments = files
	return i
}

func TestAnswersCarryFiles(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		files    []broker.Attachment
		selected string
		custom   string
		refs     []broker.FileRef
	}{
		{"picture alone", "", []broker.Attachment{file("", "image/png", pngData)},
			"", "[Image #1]", []broker.FileRef{{N: 1, Name: "image.png", Type: "image/png", Size: int64(len(pngData))}}},
		{"text and a log", "it fails at start", []broker.Attachment{file("logs/build.log", "application/octet-stream", logData)},
			"", "it fails at start [File #1: build.log]", []broker.FileRef{{N: 1, Name: "build.log", Type: "text/plain", Size: int64(len(logData))}}},
		{"option and a screenshot", "2", []broker.Attachment{file("shot.jpg", "image/jpeg", jpegData)},
			"SQLite", "[Image #1]", []broker.FileRef{{N: 1, Name: "shot.jpg", Type: "image/jpeg", Size: int64(len(jpegData))}}},
		{"several files, type from the bytes", "see these", []broker.Attachment{
			file("report", "text/plain", pdfData), file("[evil] \"name\".png", "image/png", pngData)},
			"", "see these [File #1: report] [Image #2]", []broker.FileRef{
				{N: 1, Name: "report", Type: "application/pdf", Size: int64(len(pdfData))},
				{N: 2, Name: "_evil_ _name_.png", Type: "image/png", Size: int64(len(pngData))}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			q := e.ask(t, dbQuestion())
			r := e.b.HandleInbound(context.Background(), withFiles("c1", tc.text, q.ID, tc.files...))
			if !r.OK {
				t.Fatalf("reply = %q, want the answer recorded", r.Text)
			}
			got, err := e.b.Get(context.Background(), "agent", q.ID)
			if err != nil {
				t.Fatal(err)
			}
			a := got.Result().Answers[q.Prompts[0].Question]
			if tc.selected != "" && (len(a.Selected) != 1 || a.Selected[0] != tc.selected) {
				t.Errorf("selected = %v, want [%s]", a.Selected, tc.selected)
			}
			if a.CustomText != tc.custom {
				t.Errorf("custom_text = %q, want %q", a.CustomText, tc.custom)
			}
			if len(a.Attachments) != len(tc.refs) {
				t.Fatalf("attachments = %+v, want %+v", a.Attachments, tc.refs)
			}
			for i, want := range tc.refs {
				want.URL = "/v1/questions/" + q.ID + "/attachments/" + string(rune('0'+want.N))
				if a.Attachments[i] != want {
					t.Errorf("attachments[%d] = %+v, want %+v", i, a.Attachments[i], want)
				}
				f, err := e.b.Attachment(context.Background(), "agent", q.ID, want.N)
				if err != nil {
					t.Fatalf("Attachment(%d): %v", want.N, err)
				}
				if !bytes.Equal(f.Data, tc.files[i].Data) || f.Type != want.Type {
					t.Errorf("file %d read back as %s, %d bytes; want %s, the bytes sent", want.N, f.Type, len(f.Data), want.Type)
				}
			}
			if !strings.Contains(r.Text, tc.custom) {
				t.Errorf("the person is told %q, which does not show %q", r.Text, tc.custom)
			}
		})
	}
}

func TestFilesRefused(t *testing.T) {
	no := false
	tests := []struct {
		name    string
		text    string
		closed  bool // a prompt without Other
		files   func(calls *int) []broker.Attachment
		reply   string
		fetches int
	}{
		{"declared too large: not downloaded", "", false, func(c *int) []broker.Attachment {
			return []broker.Attachment{fetched("movie.png", 11<<20, pngData, c)}
		}, "“movie.png” is 11 MiB; files may be at most 10 MiB each. Nothing was recorded.", 0},
		{"larger than declared", "", false, func(c *int) []broker.Attachment {
			return []broker.Attachment{fetched("big.log", 0, bytes.Repeat([]byte("x"), broker.MaxFileSize+5), c)}
		}, "“big.log” is over 10 MiB; files may be at most 10 MiB each. Nothing was recorded.", 1},
		{"a zip named like a picture", "here", false, func(*int) []broker.Attachment {
			return []broker.Attachment{file("photo.png", "image/png", zipData)}
		}, "“photo.png” is not a file type accepted here (accepted: " + broker.FileRule + "). Nothing was recorded.", 0},
		{"a web page sent as text", "", false, func(*int) []broker.Attachment {
			return []broker.Attachment{file("notes.txt", "text/plain", htmlData)}
		}, "“notes.txt” is not a file type accepted here (accepted: " + broker.FileRule + "). Nothing was recorded.", 0},
		{"more than a question keeps", "", false, func(*int) []broker.Attachment {
			big := append(append([]byte{}, logData...), bytes.Repeat([]byte("y"), 9<<20)...)
			return []broker.Attachment{file("a.log", "", big), file("b.log", "", big), file("c.log", "", big)}
		}, "These files come to more than 25 MiB; a question keeps at most that. Nothing was recorded.", 0},
		{"a question that takes only its options", "", true, func(c *int) []broker.Attachment {
			return []broker.Attachment{fetched("a.png", 10, pngData, c)}
		}, "Files are not accepted here: this question takes only its options. Nothing was recorded.", 0},
		{"eleven files", "", false, func(*int) []broker.Attachment {
			var fs []broker.Attachment
			for range 11 {
				fs = append(fs, file("a.png", "", pngData))
			}
			return fs
		}, "That is 11 files; one answer carries at most 10. Nothing was recorded.", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			req := dbQuestion()
			if tc.closed {
				req.Other = &no
			}
			q := e.ask(t, req)
			calls := 0
			r := e.b.HandleInbound(context.Background(), withFiles("c1", tc.text, q.ID, tc.files(&calls)...))
			if r.OK || r.Text != tc.reply || !errors.Is(r.Err, broker.ErrInvalid) {
				t.Fatalf("reply = %+v\nwant %q", r, tc.reply)
			}
			if calls != tc.fetches {
				t.Errorf("downloaded %d times, want %d", calls, tc.fetches)
			}
			got, _ := e.st.Get(context.Background(), q.ID)
			if got.Status != broker.StatusPending {
				t.Errorf("question is %s, want still pending", got.Status)
			}
			if l, _ := e.st.ListAttachments(context.Background(), q.ID); len(l) != 0 {
				t.Errorf("refused files were stored: %+v", l)
			}
		})
	}
}

func TestFilesFromForeignChatAreNotDownloaded(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, dbQuestion())
	calls := 0
	r := e.b.HandleInbound(context.Background(), withFiles("elsewhere", "", q.ID, fetched("a.png", 0, pngData, &calls)))
	if r.OK || !errors.Is(r.Err, broker.ErrNotFound) || calls != 0 {
		t.Fatalf("reply = %+v after %d downloads; want a refusal and no download", r, calls)
	}
}

// racingStore answers the question with another answer just before the
// broker records its own, as a person on another channel would.
type racingStore struct {
	*sqlite.Store
	once  sync.Once
	other func()
}

func (s *racingStore) Resolve(ctx context.Context, id string, r broker.Resolution) (*broker.Question, error) {
	s.once.Do(s.other)
	return s.Store.Resolve(ctx, id, r)
}

func TestFilesOfALosingAnswerAreDeleted(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	rs := &racingStore{Store: st}
	b, err := broker.New(broker.Config{Store: rs, Logger: slog.New(slog.DiscardHandler), Routes: map[string]broker.Route{
		broker.DefaultRoute: {Targets: []broker.Target{{Channel: "chat", Chat: "c1"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	outbox.Attach(b, rs, outbox.Config{})
	b.Register(brokertest.NewChannel("chat"))
	t.Cleanup(b.Close)
	q, _, err := b.Ask(context.Background(), "agent", dbQuestion())
	if err != nil {
		t.Fatal(err)
	}
	rs.other = func() {
		if _, err := st.Resolve(context.Background(), q.ID, broker.Resolution{Status: broker.StatusAnswered,
			Answers: map[string]broker.Answer{q.Prompts[0].Question: {Selected: []string{"MySQL"}}}, ResolvedAt: b.Now()}); err != nil {
			t.Error(err)
		}
	}
	r := b.HandleInbound(context.Background(), withFiles("c1", "look", q.ID, file("a.png", "", pngData)))
	if r.OK || !errors.Is(r.Err, broker.ErrClosed) {
		t.Fatalf("reply = %+v, want a refusal: answered meanwhile", r)
	}
	if l, _ := st.ListAttachments(context.Background(), q.ID); len(l) != 0 {
		t.Fatalf("the losing answer's files are kept: %+v", l)
	}
	if _, err := b.Attachment(context.Background(), "agent", q.ID, 1); !errors.Is(err, broker.ErrNotFound) {
		t.Fatalf("Attachment of the losing answer's file: err = %v, want ErrNotFound", err)
	}
}

func TestDialogPartWithFiles(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, &broker.AskRequest{Questions: []broker.Prompt{
		{Question: "Which database?", Options: []broker.Option{{Label: "Postgres"}, {Label: "SQLite"}}},
		{Question: "What fails?"},
	}})
	ctx := context.Background()
	if r := e.b.HandleInbound(ctx, in("c1", "ana", "/answer "+q.ID+".1 2")); !r.OK {
		t.Fatal(r.Text)
	}
	// A second answer to the first part loses: its file goes.
	r := e.b.HandleInbound(ctx, withFiles("c1", "/answer "+q.ID+".1 other see", "", file("a.png", "", pngData)))
	if r.OK || !errors.Is(r.Err, broker.ErrConflict) {
		t.Fatalf("reply = %+v, want a conflict", r)
	}
	r = e.b.HandleInbound(ctx, withFiles("c1", "this", q.ID, file("err.log", "", logData)))
	if !r.OK {
		t.Fatal(r.Text)
	}
	got, _ := e.b.Get(ctx, "agent", q.ID)
	a := got.Answers["What fails?"]
	if got.Status != broker.StatusAnswered || a.CustomText != "this [File #2: err.log]" || len(a.Attachments) != 1 || a.Attachments[0].N != 2 {
		t.Fatalf("dialog = %s, answer %+v; want answered with file 2", got.Status, a)
	}
	if l, _ := e.st.ListAttachments(ctx, q.ID); len(l) != 1 || l[0].N != 2 {
		t.Fatalf("stored files = %+v, want only number 2", l)
	}
}

func TestAttachmentOnlyForItsAgentAndNamedFiles(t *testing.T) {
	e := newEnv(t, nil)
	q := e.ask(t, dbQuestion())
	ctx := context.Background()
	// A file stored but named by no answer, as a crash would leave it.
	if _, err := e.st.PutAttachment(ctx, q.ID, broker.File{Name: "x.png", Type: "image/png", Data: pngData}, broker.MaxQuestionFiles); err != nil {
		t.Fatal(err)
	}
	if r := e.b.HandleInbound(ctx, withFiles("c1", "", q.ID, file("a.png", "", pngData))); !r.OK {
		t.Fatal(r.Text)
	}
	for _, tc := range []struct {
		name  string
		agent string
		n     int
		ok    bool
	}{
		{"owner, named file", "agent", 2, true},
		{"owner, file no answer names", "agent", 1, false},
		{"owner, number never used", "agent", 3, false},
		{"another agent", "other", 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.b.Attachment(ctx, tc.agent, q.ID, tc.n)
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, broker.ErrNotFound)) {
				t.Fatalf("Attachment = %v, want ok=%v (else ErrNotFound)", err, tc.ok)
			}
		})
	}
}
