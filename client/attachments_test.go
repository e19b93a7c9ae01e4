package client_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// TestAttachment answers with a picture and a log, then fetches both the
// way an agent does: the answer lists them, Attachment returns the bytes.
func TestAttachment(t *testing.T) {
	br := newBridge(t, nil)
	c := client.New(br.URL, "")
	ctx := context.Background()
	res, err := c.Submit(ctx, client.Question{Question: "What do you see?", Wait: "0s"})
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00")
	log := bytes.Repeat([]byte("INFO ok\n"), 1<<17) // 1 MiB: past the size of JSON answers
	r := br.B.HandleInbound(ctx, broker.Inbound{Channel: "auto", Chat: "room", User: "u1", Name: "ana", QuestionID: res.ID, Text: "look",
		Attachments: []broker.Attachment{{Name: "screen.png", Data: png}, {Name: "app.log", Data: log}}})
	if !r.OK {
		t.Fatal(r.Text)
	}
	got, err := c.Get(ctx, res.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	a := got.Answers["What do you see?"]
	if a.CustomText != "look [Image #1] [File #2: app.log]" || len(a.Attachments) != 2 || !a.Attachments[0].IsImage() || a.Attachments[1].IsImage() {
		t.Fatalf("answer = %+v", a)
	}
	for i, want := range [][]byte{png, log} {
		ref := a.Attachments[i]
		f, err := c.Attachment(ctx, res.ID, ref.N)
		if err != nil {
			t.Fatalf("Attachment(%d): %v", ref.N, err)
		}
		if f.Name != ref.Name || f.Type != ref.Type || !bytes.Equal(f.Data, want) {
			t.Fatalf("file %d = %s %s %d bytes, want %s %s %d bytes", ref.N, f.Name, f.Type, len(f.Data), ref.Name, ref.Type, len(want))
		}
	}
	_, err = c.Attachment(ctx, res.ID, 3)
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 404 || ae.Message != "question "+res.ID+" has no file 3" {
		t.Fatalf("a number never used: err = %v, want a 404 saying there is no file 3", err)
	}
}
