package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/askbridge/askbridge/broker"
)

var (
	samplePNG = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0}, 64)...)
	sampleLog = []byte("14:00:01 ERROR connection refused\n")
)

func answerBody(t *testing.T, text, id string, prompt int, files map[string][]byte) string {
	t.Helper()
	var fs []map[string]string
	for name, data := range files {
		fs = append(fs, map[string]string{"name": name, "type": "", "data": base64.StdEncoding.EncodeToString(data)})
	}
	b, err := json.Marshal(map[string]any{"text": text, "question": id, "prompt": prompt, "files": fs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAnswerWithFilesEndpoint checks POST /inbox/answer without a browser:
// what it records, and what it refuses with which words.
func TestAnswerWithFilesEndpoint(t *testing.T) {
	e := newEnv(t, Config{}, Options{Loopback: true})
	self := e.srv.URL
	url := self + "/inbox/answer"
	tests := []struct {
		name   string
		body   func(q *broker.Question) string
		status int
		ok     bool
		says   string
		custom string
	}{
		{"files alone", func(q *broker.Question) string {
			return answerBody(t, "", q.ID, 0, map[string][]byte{"shot.png": samplePNG})
		}, 200, true, "Recorded", "[Image #1]"},
		{"text and a log", func(q *broker.Question) string {
			return answerBody(t, broker.FormatOther(q.Ref(0), "it breaks"), q.ID, 0, map[string][]byte{"server.log": sampleLog})
		}, 200, true, "Recorded", "it breaks [File #1: server.log]"},
		{"no files", func(q *broker.Question) string { return answerBody(t, "", q.ID, 0, nil) }, 400, false, "Choose a file", ""},
		{"no question named", func(q *broker.Question) string {
			return answerBody(t, "", "", 0, map[string][]byte{"shot.png": samplePNG})
		}, 400, false, "question:", ""},
		{"a file type not accepted", func(q *broker.Question) string {
			return answerBody(t, "", q.ID, 0, map[string][]byte{"a.exe": []byte("MZ\x90\x00\x03")})
		}, 200, false, "“a.exe” is not a file type accepted here", ""},
		{"a file over 10 MiB", func(q *broker.Question) string {
			return answerBody(t, "", q.ID, 0, map[string][]byte{"big.log": bytes.Repeat([]byte("a"), broker.MaxFileSize+1)})
		}, 200, false, "“big.log” is over 10 MiB", ""},
		{"a body over 25 MiB of files", func(q *broker.Question) string {
			return answerBody(t, "", q.ID, 0, map[string][]byte{"a.log": bytes.Repeat([]byte("a"), broker.MaxQuestionFiles+1<<20)})
		}, 413, false, "these files come to more than 25 MiB", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q := e.ask(t, &broker.AskRequest{Question: "What fails?"})
			res, r := post(t, url, self, "application/json", tc.body(q))
			if res.StatusCode != tc.status || r.OK != tc.ok || !strings.Contains(r.Reply, tc.says) {
				t.Fatalf("got %d %+v, want %d ok=%v saying %q", res.StatusCode, r, tc.status, tc.ok, tc.says)
			}
			got := e.get(t, q.ID)
			if !tc.ok {
				if got.Status != broker.StatusPending {
					t.Fatalf("refused answer changed the question to %s", got.Status)
				}
				return
			}
			if a := got.Answers["What fails?"]; a.CustomText != tc.custom || len(a.Attachments) != 1 {
				t.Fatalf("answer = %+v, want custom_text %q and one file", a, tc.custom)
			}
		})
	}
	t.Run("cross-site upload is refused", func(t *testing.T) {
		q := e.ask(t, &broker.AskRequest{Question: "What fails?"})
		res, r := post(t, url, "http://evil.example", "application/json", answerBody(t, "", q.ID, 0, map[string][]byte{"a.png": samplePNG}))
		if res.StatusCode != 403 || r.OK {
			t.Fatalf("got %d %+v, want 403", res.StatusCode, r)
		}
	})
}

// TestPageFiles answers with files in Chromium: chosen with the file
// picker, pasted into the Other box, and refused before upload when too
// large.
func TestPageFiles(t *testing.T) {
	browser := newBrowser(t)
	e := newEnv(t, Config{}, Options{Loopback: true})
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	page := tab(t, browser, false)

	t.Run("picked files with text", func(t *testing.T) {
		q := e.ask(t, &broker.AskRequest{Question: "Which database?", Options: []broker.Option{opt("Postgres", ""), opt("SQLite", "")}})
		got := e.wait(t, q.ID)
		open(t, page, e.url)
		c := card(q.ID)
		waitText(t, page, c+" .other .files button.attach", "Attach files")
		do(t, page, chromedp.SetUploadFiles(chromedp.CSS(c+` input[type="file"]`), []string{write("screen.png", samplePNG), write("build.log", sampleLog)}))
		waitText(t, page, c+" .files .chosen", "screen.png, build.log")
		typeInto(t, page, c+` .other input[type="text"]`, "neither, see")
		click(t, page, c+" button.submit")
		waitText(t, page, "#notice", "Recorded: “neither, see [Image #1] [File #2: build.log]”")
		a := result(t, got).Answers["Which database?"]
		if len(a.Attachments) != 2 || a.Attachments[0].Name != "screen.png" || a.Attachments[1].Type != "text/plain" {
			t.Fatalf("answer files = %+v", a.Attachments)
		}
		f, err := e.b.Attachment(context.Background(), "agent", q.ID, 2)
		if err != nil || !bytes.Equal(f.Data, sampleLog) {
			t.Fatalf("stored log = %v, %v; want the bytes picked", f, err)
		}
	})

	t.Run("pasted picture alone", func(t *testing.T) {
		q := e.ask(t, &broker.AskRequest{Question: "What do you see?"})
		got := e.wait(t, q.ID)
		open(t, page, e.url)
		c := card(q.ID)
		field := c + ` .other input[type="text"]`
		do(t, page, chromedp.WaitVisible(chromedp.CSS(field)))
		paste := fmt.Sprintf(`(() => {
			const bytes = Uint8Array.from(atob(%q), (ch) => ch.charCodeAt(0));
			const dt = new DataTransfer();
			dt.items.add(new File([bytes], 'pasted.png', {type: 'image/png'}));
			document.querySelector(%q).dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
		})()`, base64.StdEncoding.EncodeToString(samplePNG), field)
		do(t, page, chromedp.Evaluate[chromedp.Void](paste))
		waitText(t, page, "#notice", "Picture attached")
		waitText(t, page, c+" .files .chosen", "pasted.png")
		click(t, page, c+" button.submit")
		waitText(t, page, "#notice", "Recorded: “[Image #1]”")
		a := result(t, got).Answers["What do you see?"]
		if a.CustomText != "[Image #1]" || len(a.Attachments) != 1 || a.Attachments[0].Type != "image/png" {
			t.Fatalf("answer = %+v", a)
		}
	})

	t.Run("too large is refused before upload", func(t *testing.T) {
		q := e.ask(t, &broker.AskRequest{Question: "Logs?"})
		open(t, page, e.url)
		c := card(q.ID)
		do(t, page, chromedp.SetUploadFiles(chromedp.CSS(c+` input[type="file"]`), []string{write("huge.log", bytes.Repeat([]byte("x"), 11<<20))}))
		click(t, page, c+" button.submit")
		waitText(t, page, "#notice", "huge.log is 11 MiB; files may be at most 10 MiB each. Nothing was sent.")
		if s := e.get(t, q.ID).Status; s != broker.StatusPending {
			t.Fatalf("question is %s, want pending", s)
		}
	})

	t.Run("wrong type is refused by the bridge", func(t *testing.T) {
		q := e.ask(t, &broker.AskRequest{Question: "Logs?"})
		open(t, page, e.url)
		c := card(q.ID)
		do(t, page, chromedp.SetUploadFiles(chromedp.CSS(c+` input[type="file"]`), []string{write("notes.txt", []byte("<html><script>alert(1)</script>"))}))
		click(t, page, c+" button.submit")
		waitText(t, page, "#notice", "“notes.txt” is not a file type accepted here")
		if s := e.get(t, q.ID).Status; s != broker.StatusPending {
			t.Fatalf("question is %s, want pending", s)
		}
	})
}

// TestAnswerRefusedBeforeBody: POST /inbox/answer from someone not
// signed in is answered 401 at once, while the body is still coming, and
// the connection is closed: the long read of uploads is for signed-in
// people only.
func TestAnswerRefusedBeforeBody(t *testing.T) {
	t.Setenv("ASKBRIDGE_TEST_WEB_TOKEN", "a-long-enough-web-token-1234")
	e := newEnv(t, Config{TokenEnv: "ASKBRIDGE_TEST_WEB_TOKEN"}, Options{Loopback: false})
	addr := e.srv.Listener.Addr().String()
	for name, framing := range map[string]string{
		"declared length": "Content-Length: 30000000\r\n\r\n{\"files\":[{\"name\":\"a.log\",\"data\":\"",
		"chunked":         "Transfer-Encoding: chunked\r\n\r\n100\r\n{\"files\":[{\"name\":\"a.log\",\"data\":\"",
	} {
		t.Run(name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			head := "POST /inbox/answer HTTP/1.1\r\nHost: " + addr + "\r\nOrigin: " + e.srv.URL + "\r\nContent-Type: application/json\r\n"
			if _, err := io.WriteString(conn, head+framing); err != nil {
				t.Fatal(err)
			}
			// The rest of the body never comes; the answer must not wait for it.
			_ = conn.SetReadDeadline(time.Now().Add(waitFor))
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatalf("no answer while the body is still coming: %v", err)
			}
			defer res.Body.Close()
			var r reply
			if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != http.StatusUnauthorized || !r.Login || !res.Close {
				t.Fatalf("got %d %+v close=%v, want 401 asking to sign in, closing the connection", res.StatusCode, r, res.Close)
			}
		})
	}
}
