package mcp_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/broker/brokertest"
	"github.com/askbridge/askbridge/mcp"
)

// answerWithFiles asks one free-text question through s and answers it
// with files; it returns the tool result.
func answerWithFiles(t *testing.T, br *bridge, s *mcp.Server, files []broker.Attachment) *sdk.CallToolResult {
	t.Helper()
	cs := connect(t, s)
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []any{map[string]any{"question": "What does the error look like?"}},
		}})
		done <- res
	}()
	if !br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) > 0 }) {
		t.Fatal("no question was posted")
	}
	reply := br.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana",
		QuestionID: br.ch.Posts()[0].ID, Text: "like this", Attachments: files})
	if !reply.OK {
		t.Fatal(reply.Text)
	}
	select {
	case res := <-done:
		if res == nil || res.IsError {
			t.Fatalf("result = %+v", res)
		}
		return res
	case <-time.After(10 * time.Second):
		t.Fatal("no result")
	}
	return nil
}

// TestFilesReachTheModel: a person answers with a screenshot, a log and
// a PDF; the model reads the markers and the list in the text, gets the
// screenshot as an image block, the log's text and the PDF's bytes as
// embedded resources with their media types, in the order of the markers.
func TestFilesReachTheModel(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 1, 2, 3)
	pdf := []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n")
	files := []broker.Attachment{{Name: "shot.png", Data: png}, {Name: "app.log", Data: []byte("ERROR boom\nat main.go:12\n")}, {Name: "report.pdf", Data: pdf}}
	br := startBridge(t)
	res := answerWithFiles(t, br, newServer(t, br), files)
	if len(res.Content) != 5 {
		t.Fatalf("%d blocks, want text, the note on the files, an image and two resources: %#v", len(res.Content), res.Content)
	}
	for _, want := range []string{`"custom_text": "like this [Image #1] [File #2: app.log] [File #3: report.pdf]"`, `"url": "/v1/questions/`, `"type": "image/png"`} {
		if !strings.Contains(textOf(res), want) {
			t.Errorf("text lacks %s:\n%s", want, textOf(res))
		}
	}
	if note, _ := res.Content[1].(*sdk.TextContent); note == nil || !strings.Contains(note.Text, "3 file(s), named by their markers. 3 follow in the order of their markers") {
		t.Errorf("second block = %#v, want the note on the files", res.Content[1])
	}
	img, ok := res.Content[2].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, png) {
		t.Fatalf("third block = %#v, want the screenshot as image/png", res.Content[2])
	}
	log, ok := res.Content[3].(*sdk.EmbeddedResource)
	if !ok || log.Resource.Text != "ERROR boom\nat main.go:12\n" || log.Resource.Blob != nil || !strings.HasPrefix(log.Resource.MIMEType, "text/plain") ||
		!strings.HasPrefix(log.Resource.URI, "askbridge:/v1/questions/") || !strings.HasSuffix(log.Resource.URI, "/attachments/2") {
		t.Fatalf("fourth block = %#v, want the log's text as an embedded text/plain resource at its bridge path", res.Content[3])
	}
	doc, ok := res.Content[4].(*sdk.EmbeddedResource)
	if !ok || !bytes.Equal(doc.Resource.Blob, pdf) || doc.Resource.Text != "" || doc.Resource.MIMEType != "application/pdf" {
		t.Fatalf("fifth block = %#v, want the PDF's bytes as an embedded application/pdf resource", res.Content[4])
	}
}

// A file larger than EmbedFilesMax stays at its url; pictures are always
// images; a negative limit embeds no other file.
func TestFilesOverTheLimitStayAtTheirURL(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 1, 2, 3)
	small, big := []byte("ok\n"), bytes.Repeat([]byte("line of a long log\n"), 100)
	for _, tt := range []struct {
		name  string
		limit int64
		kinds string // one letter a block after the two texts: i image, r resource
		note  string
	}{
		{"limit between the files", 100, "irr", "4 file(s), named by their markers. 3 follow in the order of their markers"},
		{"no limit hit", 0, "irrr", "4 file(s), named by their markers. 4 follow"},
		{"none embedded", -1, "i", "1 follow in the order of their markers: pictures as images, other files as embedded resources (text as text, the rest as base64 with its media type). 3 larger than 0 bytes stay at their url"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			br := startBridge(t)
			s, err := mcp.New(mcp.Config{Asker: mcp.Fixed(br.api), SessionID: "s1", ProgressEvery: 100 * time.Millisecond, PollWait: time.Second, EmbedFilesMax: tt.limit})
			if err != nil {
				t.Fatal(err)
			}
			res := answerWithFiles(t, br, s, []broker.Attachment{{Name: "a.txt", Data: small}, {Name: "big.log", Data: big}, {Name: "shot.png", Data: png}, {Name: "b.txt", Data: small}})
			var kinds string
			for _, c := range res.Content[2:] {
				switch c.(type) {
				case *sdk.ImageContent:
					kinds += "i"
				case *sdk.EmbeddedResource:
					kinds += "r"
				default:
					kinds += "?"
				}
			}
			note, _ := res.Content[1].(*sdk.TextContent)
			if note == nil || !strings.Contains(note.Text, tt.note) {
				t.Fatalf("note %#v, want it to say %q", res.Content[1], tt.note)
			}
			// Sorted by marker: a.txt 1, big.log 2, shot.png 3, b.txt 4.
			want := map[string]string{"irr": "rir", "irrr": "rrir", "i": "i"}[tt.kinds]
			if kinds != want {
				t.Fatalf("blocks %q, want %q", kinds, want)
			}
			if tt.limit == 100 && !strings.Contains(note.Text, "1 larger than 100 bytes stay at their url on the bridge") {
				t.Fatalf("note %q does not say which file stays at its url", note.Text)
			}
		})
	}
}
