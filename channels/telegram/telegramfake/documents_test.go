package telegramfake

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// sendDocument posts a sendDocument call as multipart/form-data the way
// Bot API clients do: the fields, then the file in "document" (none when
// name is "").
func sendDocument(t *testing.T, s *Server, fields map[string]string, name string, data []byte) (int, map[string]any) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if name != "" {
		fw, err := w.CreateFormFile("document", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL()+"/bot"+testToken+"/sendDocument", w.FormDataContentType(), &body)
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

const testToken = "1:fake"

func TestSendDocumentReplies(t *testing.T) {
	s := New(testToken, User{ID: 9, FirstName: "Bot", Username: "bot"})
	defer s.Close()
	s.AddChat(Chat{ID: -100, Type: "supergroup", Title: "Team"})
	s.mu.Lock()
	question := s.addMessage(-100, s.bot, "Allow?", 0)
	s.mu.Unlock()
	data := []byte("echo \"$(date)\" <&>\n")

	tests := []struct {
		name   string
		fields map[string]string
		file   string
		status int
		// desc is the error description, or "" for success.
		desc    string
		replyTo int
	}{
		{"reply_parameters", map[string]string{"chat_id": "-100", "reply_parameters": `{"message_id":1}`, "caption": "whole"},
			"context.txt", 200, "", question.ID},
		{"reply_to_message_id", map[string]string{"chat_id": "-100", "reply_to_message_id": "1"}, "context.txt", 200, "", question.ID},
		{"no reply", map[string]string{"chat_id": "-100"}, "context.txt", 200, "", 0},
		{"a reply to a missing message", map[string]string{"chat_id": "-100", "reply_parameters": `{"message_id":99}`},
			"context.txt", 400, "Bad Request: message to be replied not found", 0},
		{"a reply to a missing message, allowed", map[string]string{"chat_id": "-100", "reply_parameters": `{"message_id":99,"allow_sending_without_reply":true}`},
			"context.txt", 200, "", 0},
		{"broken reply_parameters", map[string]string{"chat_id": "-100", "reply_parameters": `{message_id:1}`},
			"context.txt", 400, "Bad Request: can't parse reply parameters JSON object", 0},
		{"no document", map[string]string{"chat_id": "-100"}, "", 400, "Bad Request: there is no document in the request", 0},
		{"an unknown chat", map[string]string{"chat_id": "-200"}, "context.txt", 400, "Bad Request: chat not found", 0},
		{"a caption too long", map[string]string{"chat_id": "-100", "caption": strings.Repeat("c", 1025)},
			"context.txt", 400, "Bad Request: message caption is too long", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(s.BotMessages(-100))
			status, out := sendDocument(t, s, tt.fields, tt.file, data)
			if status != tt.status {
				t.Fatalf("status %d (%v), want %d", status, out, tt.status)
			}
			msgs := s.BotMessages(-100)
			if tt.desc != "" {
				if out["description"] != tt.desc {
					t.Errorf("description %q, want %q", out["description"], tt.desc)
				}
				if len(msgs) != before {
					t.Errorf("a refused call added a message")
				}
				return
			}
			if len(msgs) != before+1 {
				t.Fatalf("%d messages added, want 1", len(msgs)-before)
			}
			m := msgs[len(msgs)-1]
			if m.Document == nil || string(m.Document.Data) != string(data) || m.Document.FileName != "context.txt" || m.Document.MimeType != "text/plain" {
				t.Errorf("document %+v, want context.txt of text/plain with the bytes sent", m.Document)
			}
			if m.ReplyTo != tt.replyTo {
				t.Errorf("replies to %d, want %d", m.ReplyTo, tt.replyTo)
			}
			res, _ := out["result"].(map[string]any)
			doc, _ := res["document"].(map[string]any)
			if doc["file_name"] != "context.txt" || res["text"] != nil {
				t.Errorf("result %v, want a document message without text", res)
			}
			if tt.replyTo != 0 && res["reply_to_message"] == nil {
				t.Errorf("result %v has no reply_to_message", res)
			}
		})
	}
}
