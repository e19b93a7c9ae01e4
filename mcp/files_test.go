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
)

// TestPicturesComeBackAsImages: a person answers with a screenshot and a
// log; the model reads the markers and the list in the text, and gets the
// screenshot as an image block.
func TestPicturesComeBackAsImages(t *testing.T) {
	br := startBridge(t)
	cs := connect(t, newServer(t, br))
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
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 1, 2, 3)
	reply := br.b.HandleInbound(context.Background(), broker.Inbound{Channel: "room", Chat: "c1", User: "u1", Name: "ana",
		QuestionID: br.ch.Posts()[0].ID, Text: "like this",
		Attachments: []broker.Attachment{{Name: "shot.png", Data: png}, {Name: "app.log", Data: []byte("ERROR boom\n")}}})
	if !reply.OK {
		t.Fatal(reply.Text)
	}
	res := <-done
	if res == nil || res.IsError || len(res.Content) != 3 {
		t.Fatalf("result = %+v, want text, a note on the files, and one image", res)
	}
	for _, want := range []string{`"custom_text": "like this [Image #1] [File #2: app.log]"`, `"url": "/v1/questions/`, `"type": "image/png"`} {
		if !strings.Contains(textOf(res), want) {
			t.Errorf("text lacks %s:\n%s", want, textOf(res))
		}
	}
	if note, _ := res.Content[1].(*sdk.TextContent); note == nil || !strings.Contains(note.Text, "the 1 picture(s) follow as images") {
		t.Errorf("second block = %#v, want the note on the files", res.Content[1])
	}
	img, ok := res.Content[2].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" || !bytes.Equal(img.Data, png) {
		t.Fatalf("third block = %#v, want the screenshot as image/png", res.Content[2])
	}
}
