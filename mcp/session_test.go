package mcp_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/mcp"
)

// TestIdleSessionEndCancels: an HTTP session whose client vanished
// without ending it is closed after its idle timeout, and the questions
// ask_user left pending in it are cancelled with "the asking agent is
// gone" instead of living until their deadline.
func TestIdleSessionEndCancels(t *testing.T) {
	br := startBridge(t)
	s, err := mcp.New(mcp.Config{Asker: mcp.Fixed(br.api), SessionTimeout: time.Second, ProgressEvery: 100 * time.Millisecond, PollWait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.HTTPHandler())
	defer hs.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask_user", Arguments: map[string]any{
		"questions": []map[string]any{{"question": "Purge the cache?", "options": []map[string]any{{"label": "Yes"}, {"label": "No"}}}},
		"wait":      false,
	}})
	if err != nil || res.IsError {
		t.Fatalf("ask_user: %v %s", err, textOf(res))
	}
	// The client goes silent (as a killed agent would) without ending the
	// session.
	var q client.Result
	deadline := time.Now().Add(20 * time.Second)
	for {
		list, err := br.api.List(ctx, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 {
			t.Fatalf("%d questions, want the one asked", len(list))
		}
		if q = list[0]; q.Status != client.StatusPending || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if q.Status != client.StatusCancelled || !strings.Contains(q.Reason, mcp.ReasonAgentGone) {
		t.Fatalf("the idle session's question is %s (%q), want cancelled: %s", q.Status, q.Reason, mcp.ReasonAgentGone)
	}
}
