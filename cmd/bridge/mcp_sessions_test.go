package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// TestMCPSessionsConfigKeys checks limits.mcp_sessions_per_agent and
// mcp.session_idle as a person writes them: unset means the defaults,
// good values are read, bad ones are refused by check-config with the
// key named.
func TestMCPSessionsConfigKeys(t *testing.T) {
	tests := []struct {
		name     string
		yaml     string
		sessions int // 0: unset
		idle     time.Duration
		wantErr  string
	}{
		{name: "unset: defaults", yaml: "listen: 127.0.0.1:8377\n"},
		{name: "both set", yaml: "limits:\n  mcp_sessions_per_agent: 4\nmcp:\n  session_idle: 30s\n", sessions: 4, idle: 30 * time.Second},
		{name: "bounds", yaml: "limits:\n  mcp_sessions_per_agent: 10000\nmcp:\n  session_idle: 24h\n", sessions: 10000, idle: 24 * time.Hour},
		{name: "one", yaml: "limits:\n  mcp_sessions_per_agent: 1\nmcp:\n  session_idle: 1s\n", sessions: 1, idle: time.Second},
		{name: "zero sessions", yaml: "limits:\n  mcp_sessions_per_agent: 0\n", wantErr: "limits.mcp_sessions_per_agent: must be a whole number from 1 to 10000, got 0"},
		{name: "negative sessions", yaml: "limits:\n  mcp_sessions_per_agent: -3\n", wantErr: "limits.mcp_sessions_per_agent: must be a whole number from 1 to 10000, got -3"},
		{name: "too many sessions", yaml: "limits:\n  mcp_sessions_per_agent: 100000\n", wantErr: "limits.mcp_sessions_per_agent: must be a whole number from 1 to 10000, got 100000"},
		{name: "sessions not a number", yaml: "limits:\n  mcp_sessions_per_agent: lots\n", wantErr: "line 2"},
		{name: "idle too short", yaml: "mcp:\n  session_idle: 500ms\n", wantErr: "line 2: mcp.session_idle: 500ms is outside 1s–24h"},
		{name: "idle zero", yaml: "mcp:\n  session_idle: 0s\n", wantErr: "line 2: mcp.session_idle: 0s is outside 1s–24h"},
		{name: "idle too long", yaml: "mcp:\n  session_idle: 48h\n", wantErr: "line 2: mcp.session_idle: 48h0m0s is outside 1s–24h"},
		{name: "idle not a duration", yaml: "mcp:\n  session_idle: later\n", wantErr: `line 2: mcp.session_idle: "later" is not a duration (use e.g. 10m)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bridge.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg, err := bridgeconfig.Load(path)
			if err == nil {
				err = cfg.Finish()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("config %q: err = %v, want it to say %q", tt.yaml, err, tt.wantErr)
				}
				var stderr bytes.Buffer
				if code := run([]string{"check-config", "--config", path}, nil, io.Discard, &stderr); code != cmdline.ExitBadInput {
					t.Errorf("check-config exit %d, want %d", code, cmdline.ExitBadInput)
				}
				if !strings.Contains(stderr.String(), tt.wantErr) {
					t.Errorf("check-config said %q, want it to say %q", stderr.String(), tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("config %q: %v", tt.yaml, err)
			}
			got := 0
			if n := cfg.Limits.MCPSessionsPerAgent; n != nil {
				got = *n
			}
			if got != tt.sessions || time.Duration(cfg.MCP.SessionIdle) != tt.idle {
				t.Fatalf("sessions %d, idle %s; want %d, %s", got, time.Duration(cfg.MCP.SessionIdle), tt.sessions, tt.idle)
			}
		})
	}
}

// mcpInitialize opens an MCP session on /mcp with a raw initialize
// request carrying key.
func mcpInitialize(t *testing.T, addr, key string) (*http.Response, string) {
	t.Helper()
	return mcpPost(t, addr, key, "", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
}

// mcpPost sends one JSON-RPC message to /mcp with key, in session when
// not empty.
func mcpPost(t *testing.T, addr, key, session, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp, string(data)
}

// TestMCPSessionsPerAgent runs bridge serve with two MCP sessions per
// agent and a one-second session_idle: the agent is named by its key,
// busy sessions make a third a 429 naming the agent and the key, another
// agent is unaffected, and an idle session is closed (404).
func TestMCPSessionsPerAgent(t *testing.T) {
	t.Parallel()
	addr, dir := freeAddr(t), t.TempDir()
	cfg := filepath.Join(dir, "askbridge.yaml")
	err := os.WriteFile(cfg, []byte(`agents:
  - name: builder
    key_env: MCPSESS_KEY_A
  - name: reviewer
    key_env: MCPSESS_KEY_B
limits:
  mcp_sessions_per_agent: 2
mcp:
  session_idle: 1s
  progress_every: 300ms
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	startServe(t, addr, []string{"MCPSESS_KEY_A=key-a-secret", "MCPSESS_KEY_B=key-b-secret"}, "--config", cfg, "--data-dir", dir)
	apiA := client.New("http://"+addr, "key-a-secret")

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for _, q := range []string{"Tag the release?", "Rotate the keys?"} {
		conn, err := connectHTTP(t, addr, "key-a-secret")
		if err != nil {
			t.Fatalf("session for %q: %v", q, err)
		}
		conn.callAsync(t, ctx, "ask_user", askArgs(prompt(q, "Yes", "No")), nil)
		questionNamed(t, apiA, q)
	}

	resp, body := mcpInitialize(t, addr, "key-a-secret")
	var msg struct {
		Error struct{ Message string } `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &msg)
	want := `agent "builder" already has 2 MCP sessions with a request under way, the most allowed (limits.mcp_sessions_per_agent)`
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(msg.Error.Message, want) {
		t.Fatalf("a third session of builder: %s %s; want 429 saying %q", resp.Status, body, want)
	}

	resp, body = mcpInitialize(t, addr, "key-b-secret")
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("a session of reviewer: %s %s", resp.Status, body)
	}
	// Each ping is a request that keeps the session: wait longer than
	// session_idle before each.
	deadline := time.Now().Add(15 * time.Second)
	for {
		time.Sleep(1500 * time.Millisecond)
		resp, _ := mcpPost(t, addr, "key-b-secret", session, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
		if resp.StatusCode == http.StatusNotFound {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reviewer's idle session still answers %s after session_idle", resp.Status)
		}
	}
}
