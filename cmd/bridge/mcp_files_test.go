package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// TestMCPAnswerWithPicture runs the whole path of a picture on `bridge
// serve`: ask_user on /mcp, a person answers in the web inbox with a
// screenshot, the tool result carries it as an image, and the agent
// fetches it with its key.
func TestMCPAnswerWithPicture(t *testing.T) {
	t.Parallel()
	addr, dir := freeAddr(t), t.TempDir()
	cfg := filepath.Join(dir, "askbridge.yaml")
	if err := os.WriteFile(cfg, []byte("agents:\n  - name: builder\n    key_env: MCPFILES_KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startServe(t, addr, []string{"MCPFILES_KEY=key-files-secret"}, "--config", cfg, "--data-dir", dir)
	api := client.New("http://"+addr, "key-files-secret")
	conn, err := connectHTTP(t, addr, "key-files-secret")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ch := conn.callAsync(t, ctx, "ask_user", askArgs(prompt("What does the dialog show?")), nil)
	q := questionNamed(t, api, "What does the dialog show?")

	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 100)...)
	body, _ := json.Marshal(map[string]any{"question": q.ID, "files": []map[string]string{
		{"name": "dialog.png", "type": "image/png", "data": base64.StdEncoding.EncodeToString(png)}}})
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/inbox/answer", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://"+addr)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		OK    bool   `json:"ok"`
		Reply string `json:"reply"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&rep)
	resp.Body.Close()
	if !rep.OK {
		t.Fatalf("web inbox answer: %d %q", resp.StatusCode, rep.Reply)
	}

	res := receive(t, ch, 20*time.Second)
	if res.IsError || !strings.Contains(text(res), `"custom_text": "[Image #1]"`) {
		t.Fatalf("result: %s", text(res))
	}
	var img *sdk.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*sdk.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/png" || !bytes.Equal(img.Data, png) {
		t.Fatalf("no image block with the screenshot in %d blocks", len(res.Content))
	}
	f, err := api.Attachment(ctx, q.ID, 1)
	if err != nil || !bytes.Equal(f.Data, png) || f.Name != "dialog.png" {
		t.Fatalf("Attachment = %+v, %v; want dialog.png with the bytes sent", f, err)
	}
}
