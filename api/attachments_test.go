package api_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

// answerWithFiles answers the question by a person on the cli channel,
// sending files.
func (s *server) answerWithFiles(t *testing.T, id, text string, files ...broker.Attachment) {
	t.Helper()
	r := s.b.HandleInbound(context.Background(), broker.Inbound{Channel: "cli", User: "ana", Name: "ana", Text: text, QuestionID: id, Attachments: files})
	if !r.OK {
		t.Fatalf("answer with files: %s", r.Text)
	}
}

func TestAttachmentEndpoint(t *testing.T) {
	s := newServer(t)
	code, body := s.call(t, "POST", "/v1/questions", agentKey, map[string]any{"question": "What breaks?", "wait": "0s"})
	if code != http.StatusAccepted {
		t.Fatalf("ask: %d %v", code, body)
	}
	id := body["id"].(string)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")
	log := []byte("ERROR: disk full\n")
	s.answerWithFiles(t, id, "see",
		broker.Attachment{Name: "screen.png", Data: png},
		broker.Attachment{Name: "../../etc/Prüfung \"1\".log", Type: "text/html", Data: log})

	_, res := s.call(t, "GET", "/v1/questions/"+id, agentKey, nil)
	a := res["answers"].(map[string]any)["What breaks?"].(map[string]any)
	if a["custom_text"] != "see [Image #1] [File #2: Prüfung _1_.log]" {
		t.Fatalf("custom_text = %q", a["custom_text"])
	}
	refs := a["attachments"].([]any)
	if len(refs) != 2 || refs[1].(map[string]any)["url"] != "/v1/questions/"+id+"/attachments/2" || refs[1].(map[string]any)["type"] != "text/plain" {
		t.Fatalf("attachments = %v", refs)
	}

	tests := []struct {
		name, key, path string
		status          int
		ctype, disp     string
		body            []byte
	}{
		{"picture inline", agentKey, "/1", 200, "image/png", `inline; filename=screen.png`, png},
		{"log as a download, declared type ignored", agentKey, "/2", 200, "text/plain; charset=utf-8", `attachment; filename*=utf-8''Pr%C3%BCfung%20_1_.log`, log},
		{"another agent", otherKey, "/1", 404, "", "", nil},
		{"no key", "", "/1", 401, "", "", nil},
		{"number never used", agentKey, "/3", 404, "", "", nil},
		{"not a number", agentKey, "/x", 400, "", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", s.URL+"/v1/questions/"+id+"/attachments"+tc.path, nil)
			if tc.key != "" {
				req.Header.Set("Authorization", "Bearer "+tc.key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, got, tc.status)
			}
			if tc.status != 200 {
				return
			}
			h := resp.Header
			if h.Get("Content-Type") != tc.ctype || h.Get("Content-Disposition") != tc.disp || h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("headers: Content-Type %q, Content-Disposition %q, X-Content-Type-Options %q; want %q, %q, nosniff",
					h.Get("Content-Type"), h.Get("Content-Disposition"), h.Get("X-Content-Type-Options"), tc.ctype, tc.disp)
			}
			if string(got) != string(tc.body) {
				t.Errorf("body = %q, want %q", got, tc.body)
			}
		})
	}
}
