package mcp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/broker/brokertest"
)

// An ask_user call over streamable HTTP that waits longer than the HTTP
// server's write timeout still gets its progress and its answer.
func TestAskOverHTTPOutlivesTheWriteTimeout(t *testing.T) {
	const short = 300 * time.Millisecond
	br := startBridge(t)
	s := newServer(t, br)
	hs := httptest.NewUnstartedServer(s.HTTPHandler())
	hs.Config.ReadTimeout, hs.Config.WriteTimeout = short, short
	hs.Start()
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	done := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
			"questions": []map[string]any{{"question": "Deploy now?", "header": "Deploy", "options": []map[string]any{{"label": "Yes"}, {"label": "No"}}}},
		}})
		if err != nil {
			t.Errorf("ask_user: %v", err)
		}
		done <- res
	}()
	if !br.ch.WaitFor(10*time.Second, func(c *brokertest.Channel) bool { return len(c.Posts()) > 0 }) {
		t.Fatal("no question was posted")
	}
	time.Sleep(4 * short)
	br.answer(t, func(id string) string { return "/answer " + id + " 1" })
	res := <-done
	if res == nil || res.IsError || !strings.Contains(textOf(res), "Yes") {
		t.Fatalf("ask_user answered %s after the write timeout: %+v", 4*short, res)
	}
}
