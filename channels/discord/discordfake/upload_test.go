package discordfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// upload creates a message in channel with a multipart/form-data body as
// Discord clients send it: payload_json (none when "") and files[n].
func upload(t *testing.T, s *Server, channel, payload string, files ...File) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if payload != "" {
		if err := w.WriteField("payload_json", payload); err != nil {
			t.Fatal(err)
		}
	}
	for i, f := range files {
		h := make(map[string][]string)
		h["Content-Disposition"] = []string{fmt.Sprintf(`form-data; name="files[%d]"; filename="%s"`, i, f.Name)}
		h["Content-Type"] = []string{f.ContentType}
		p, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = p.Write(f.Data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL()+"/api/v9/channels/"+channel+"/messages", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bot "+s.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func TestUploadCreatesAMessageWithAttachments(t *testing.T) {
	s := New()
	defer s.Close()
	ch := s.AddChannel(s.NewGuild())
	q := &Message{ID: s.snowflake(), ChannelID: ch, Author: s.BotUser}
	s.mu.Lock()
	s.messages[q.ID] = q
	s.order = append(s.order, q.ID)
	s.mu.Unlock()
	ctx := File{Name: "context.txt", ContentType: "text/plain; charset=utf-8", Data: []byte("echo \"$(date)\" <&>\n")}
	payload := `{"content":"whole context","message_reference":{"message_id":"` + q.ID + `","channel_id":"` + ch + `"},"allowed_mentions":{"parse":[]},"nonce":"c1","enforce_nonce":true}`

	status, out := upload(t, s, ch, payload, ctx)
	if status != http.StatusOK {
		t.Fatalf("status %d: %v", status, out)
	}
	m := s.Message(out["id"].(string))
	if m == nil || m.Reference == nil || m.Reference.MessageID != q.ID || m.Content != "whole context" {
		t.Fatalf("message %+v, want the content replying to %s", m, q.ID)
	}
	if len(m.Attachments) != 1 || m.Attachments[0].Filename != "context.txt" || m.Attachments[0].Size != len(ctx.Data) {
		t.Fatalf("attachments %+v, want context.txt", m.Attachments)
	}
	resp, err := http.Get(m.Attachments[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(data, ctx.Data) {
		t.Errorf("the CDN serves %q, want %q", data, ctx.Data)
	}
	if status, again := upload(t, s, ch, payload, ctx); status != http.StatusOK || again["id"] != out["id"] {
		t.Errorf("the same nonce made %v (%d), want message %v again", again["id"], status, out["id"])
	}
}

func TestUploadRefusals(t *testing.T) {
	small := File{Name: "a.txt", ContentType: "text/plain", Data: []byte("a")}
	var eleven []File
	for range maxFiles + 1 {
		eleven = append(eleven, small)
	}
	tests := []struct {
		name    string
		payload string
		files   []File
		fail    int
		status  int
		code    float64
	}{
		{"nothing to send", `{"content":""}`, nil, 0, 400, 50006},
		{"no payload and no files", "", nil, 0, 400, 50006},
		{"too many files", `{"content":"x"}`, eleven, 0, 400, 50035},
		{"a file too large", `{"content":"x"}`, []File{{Name: "big.bin", ContentType: "application/octet-stream", Data: make([]byte, maxFileSize+1)}}, 0, 413, 40005},
		{"broken payload_json", `{"content":`, []File{small}, 0, 400, 0},
		{"no permission to attach files", `{"content":"x"}`, []File{small}, http.StatusForbidden, 403, 50013},
		{"a server error", `{"content":"x"}`, []File{small}, http.StatusInternalServerError, 500, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New()
			defer s.Close()
			ch := s.AddChannel(s.NewGuild())
			s.FailUploads(tt.fail)
			status, out := upload(t, s, ch, tt.payload, tt.files...)
			if status != tt.status || out["code"] != tt.code {
				t.Errorf("answered %d %v, want %d with code %v", status, out, tt.status, tt.code)
			}
			if msg, _ := out["message"].(string); strings.TrimSpace(msg) == "" {
				t.Errorf("the refusal says nothing: %v", out)
			}
			if n := len(s.Messages(ch)); n != 0 {
				t.Errorf("a refused upload made %d messages", n)
			}
		})
	}
}
