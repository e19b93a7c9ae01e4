package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/client"
)

// bearer adds an agent key to every request.
type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.key != "" {
		r.Header.Set("Authorization", "Bearer "+b.key)
	}
	return b.next.RoundTrip(r)
}

// connectHTTP opens an MCP session on /mcp with an agent key.
func connectHTTP(t *testing.T, addr, key string) (*mcpConn, error) {
	t.Helper()
	return connectMCP(t, &sdk.StreamableClientTransport{
		Endpoint:   "http://" + addr + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key, http.DefaultTransport}},
		MaxRetries: -1,
	})
}

// TestMCPStreamableHTTP uses /mcp on `bridge serve` with agent keys: the
// key is required, each question belongs to the agent whose key asked it,
// progress arrives while a question waits, and a cancelled call cancels
// its question.
func TestMCPStreamableHTTP(t *testing.T) {
	t.Parallel()
	addr, dir := freeAddr(t), t.TempDir()
	cfg := filepath.Join(dir, "askbridge.yaml")
	err := os.WriteFile(cfg, []byte(`agents:
  - name: builder
    key_env: MCPTEST_KEY_A
  - name: reviewer
    key_env: MCPTEST_KEY_B
mcp:
  progress_every: 300ms
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	startServe(t, addr, []string{"MCPTEST_KEY_A=key-a-secret", "MCPTEST_KEY_B=key-b-secret"}, "--config", cfg, "--data-dir", dir)
	apiA := client.New("http://"+addr, "key-a-secret")
	apiB := client.New("http://"+addr, "key-b-secret")

	for _, key := range []string{"", "wrong-key"} {
		if _, err := connectHTTP(t, addr, key); err == nil {
			t.Fatalf("connected to /mcp with key %q", key)
		}
	}
	for _, tc := range []struct {
		key  string
		want int
	}{{"", http.StatusUnauthorized}, {"key-a-secret", http.StatusMethodNotAllowed}} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := (&http.Client{Transport: bearer{tc.key, http.DefaultTransport}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET /mcp with key %q: %d, want %d (no standalone stream)", tc.key, resp.StatusCode, tc.want)
		}
	}
	connA, err := connectHTTP(t, addr, "key-a-secret")
	if err != nil {
		t.Fatalf("connect with agent key: %v", err)
	}
	connB, err := connectHTTP(t, addr, "key-b-secret")
	if err != nil {
		t.Fatalf("connect with agent key: %v", err)
	}

	t.Run("answered, with progress, as the calling agent", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ch := connA.callAsync(t, ctx, "ask_user", askArgs(prompt("Merge the release branch?", "Merge now (Recommended)", "Wait")), "http-progress")
		q := questionNamed(t, apiA, "Merge the release branch?")
		if q.SessionID != connA.cs.ID() || q.SessionID == "" {
			t.Errorf("session_id %q, want the MCP session %q", q.SessionID, connA.cs.ID())
		}
		if q.ToolCallID != "progress-http-progress" {
			t.Errorf("tool_call_id %q, want it from the progress token", q.ToolCallID)
		}
		for _, r := range listQuestions(t, apiB) {
			if r.ID == q.ID {
				t.Fatal("another agent sees the question")
			}
		}
		// The other agent cannot read it through its own session: the
		// tool says what the API says, that there is no such question.
		other := connB.call(t, ctx, "get_answer", map[string]any{"id": q.ID, "wait_seconds": 0}, nil)
		if !other.IsError || !strings.Contains(text(other), "there is no question "+q.ID) {
			t.Fatalf("get_answer by another agent: %s", text(other))
		}
		deadline := time.Now().Add(15 * time.Second)
		for len(connA.progressFor("http-progress")) < 2 {
			if time.Now().After(deadline) {
				t.Fatalf("%d progress notifications, want at least 2", len(connA.progressFor("http-progress")))
			}
			time.Sleep(50 * time.Millisecond)
		}
		command(t, apiA, "/answer "+q.ID+" 1")
		res := receive(t, ch, 20*time.Second)
		if res.IsError || !strings.HasPrefix(text(res), "User answered your questions:") {
			t.Fatalf("result: %s", text(res))
		}
		if o := outcome(t, res); o.Answers["Merge the release branch?"].Selected[0] != "Merge now (Recommended)" {
			t.Fatalf("answers: %+v", o.Answers)
		}
	})

	t.Run("cancelled by the client", func(t *testing.T) {
		t.Parallel()
		checkCancelledByClient(t, connB, apiB, "Drop the staging database?")
	})

	t.Run("bad input names the field", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res := connA.call(t, ctx, "ask_user", askArgs(prompt("Proceed?", "Yes")), nil)
		if !res.IsError || !strings.Contains(text(res), "questions[0].options: give no options (free text) or 2–4 options, got 1") {
			t.Fatalf("one option: %s", text(res))
		}
	})
}
