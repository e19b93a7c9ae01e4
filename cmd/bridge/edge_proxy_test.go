package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/askbridge/askbridge/api"
	"github.com/askbridge/askbridge/app/bridgeconfig"
	"github.com/askbridge/askbridge/channels/slack"
	"github.com/askbridge/askbridge/channels/slack/slackfake"
	"github.com/askbridge/askbridge/client"
)

// send makes one request to the bridge and returns the status and the
// error code of the answer ("" when it is not an error).
func send(t *testing.T, method, url, host string, headers map[string]string, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var e struct {
		Error struct{ Code, Message string }
	}
	_ = json.Unmarshal(data, &e)
	return resp.StatusCode, e.Error.Code, string(data)
}

// TestKeylessBridgeBehindProxy is a default bridge with nginx or Caddy in
// front: the proxy's requests are refused with a 403 that says keys are
// required, the operator is warned once, and the question stays pending.
// Slack's webhook, which checks its own signature, still gets its
// deliveries (and refuses the unsigned one itself).
func TestKeylessBridgeBehindProxy(t *testing.T) {
	fake := slackfake.New(t)
	t.Setenv("ASKBRIDGE_TEST_SLACK_BOT", slackfake.BotToken)
	t.Setenv("ASKBRIDGE_TEST_SLACK_SECRET", "slack-signing-secret-for-the-proxy-test")
	cfg := bridgeconfig.Default()
	cfg.Channels.Slack = &slack.Config{BotTokenEnv: "ASKBRIDGE_TEST_SLACK_BOT", SigningSecretEnv: "ASKBRIDGE_TEST_SLACK_SECRET", Mode: slack.ModeHTTP, APIURL: fake.URL}
	b := startEdgeBridge(t, &cfg)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	agent := client.New(b.url, "")
	id, err := agent.AskAsync(ctx, client.Question{Question: "Deploy to production?", Options: []client.Option{{Label: "Yes"}, {Label: "No"}}})
	if err != nil {
		t.Fatal(err)
	}
	viaProxy := map[string]string{"Content-Type": "application/json", "X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
	tests := []struct {
		name, method, path, body string
		headers                  map[string]string
		host                     string
		status                   int
		code, message            string
	}{
		{name: "answer as anyone", method: "POST", path: "/v1/commands", body: `{"user":"anyone","text":"/answer ` + id + ` 1"}`, headers: viaProxy,
			status: 403, code: "proxy_needs_keys", message: "this request came through a proxy (it carries X-Forwarded-For), and this bridge has no agent keys"},
		{name: "ask", method: "POST", path: "/v1/questions", body: `{"question":"Planted?","wait":"0s"}`, headers: viaProxy, status: 403, code: "proxy_needs_keys"},
		{name: "list", method: "GET", path: "/v1/questions", headers: map[string]string{"Forwarded": "for=203.0.113.9;proto=https"}, status: 403, code: "proxy_needs_keys", message: "Forwarded"},
		{name: "inbox state", method: "GET", path: "/inbox/state", headers: map[string]string{"X-Forwarded-Host": "bridge.example.com"}, status: 403, code: "proxy_needs_keys"},
		{name: "inbox command", method: "POST", path: "/inbox/command", body: `{"text":"/answer ` + id + ` 1"}`, headers: viaProxy, status: 403, code: "proxy_needs_keys"},
		{name: "mcp", method: "POST", path: "/mcp", body: `{}`, headers: viaProxy, status: 403, code: "proxy_needs_keys"},
		{name: "slack webhook through the proxy", method: "POST", path: "/slack/commands", body: "command=%2Fanswer&text=" + id + "+1",
			headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": "203.0.113.9"}, status: 401},
		{name: "slack webhook under another name", method: "POST", path: "/slack/commands", body: "command=%2Fanswer",
			headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, host: "evil.example", status: 421, code: "unknown_host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, code, body := send(t, tt.method, b.url+tt.path, tt.host, tt.headers, tt.body)
			if status != tt.status || code != tt.code || !strings.Contains(body, tt.message) {
				t.Fatalf("%s %s: %d %s; want %d %q with %q", tt.method, tt.path, status, body, tt.status, tt.code, tt.message)
			}
		})
	}
	assertUntouched(t, ctx, agent, id)
	if n := strings.Count(b.logs.String(), "keys are required behind a proxy"); n != 1 {
		t.Errorf("%d warnings about the proxy, want 1:\n%s", n, b.logs)
	}
}

// TestKeyedBridgeBehindProxy is the set-up docs/security.md describes:
// agent and responder keys, a web token and public_url. Through the proxy,
// agents and responders work with their keys, and the inbox with its
// token; a request without a key still gets the API's 401.
func TestKeyedBridgeBehindProxy(t *testing.T) {
	t.Setenv("ASKBRIDGE_TEST_AGENT", "agent-key-behind-the-proxy")
	t.Setenv("ASKBRIDGE_TEST_ANA", "responder-key-behind-the-proxy")
	t.Setenv("ASKBRIDGE_TEST_WEB", "web-token-behind-the-proxy-0123")
	cfg := bridgeconfig.Default()
	cfg.Agents = []api.AgentSettings{{KeySettings: api.KeySettings{Name: "claude", KeyEnv: "ASKBRIDGE_TEST_AGENT"}}}
	cfg.Responders = []api.ResponderSettings{{KeySettings: api.KeySettings{Name: "ana", KeyEnv: "ASKBRIDGE_TEST_ANA"}}}
	cfg.Channels.Web.TokenEnv = "ASKBRIDGE_TEST_WEB"
	cfg.Server.PublicURL = "https://bridge.example.com"
	b := startEdgeBridge(t, &cfg)
	proxied := func(more ...string) map[string]string {
		h := map[string]string{"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https", "Content-Type": "application/json"}
		for i := 0; i+1 < len(more); i += 2 {
			h[more[i]] = more[i+1]
		}
		return h
	}
	const host = "bridge.example.com"
	status, _, body := send(t, "POST", b.url+"/v1/questions", host, proxied("Authorization", "Bearer agent-key-behind-the-proxy"), `{"question":"Deploy to production?","options":[{"label":"Yes"},{"label":"No"}],"wait":"0s","session_id":"proxy","tool_call_id":"deploy-1"}`)
	if status != http.StatusAccepted {
		t.Fatalf("ask through the proxy: %d %s", status, body)
	}
	var q struct{ ID string }
	_ = json.Unmarshal([]byte(body), &q)
	for _, tt := range []struct {
		name, method, path, body string
		headers                  map[string]string
		status                   int
		code                     string
	}{
		{"list without a key", "GET", "/v1/questions", "", proxied(), 401, "unauthorized"},
		{"answer without a key", "POST", "/v1/commands", `{"user":"anyone","text":"/answer ` + q.ID + ` 1"}`, proxied(), 401, "unauthorized"},
		{"inbox without a token", "GET", "/inbox/state", "", proxied(), 401, ""},
		{"answer with the responder key", "POST", "/v1/commands", `{"text":"/answer ` + q.ID + ` 1"}`, proxied("Authorization", "Bearer responder-key-behind-the-proxy"), 200, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, code, body := send(t, tt.method, b.url+tt.path, host, tt.headers, tt.body)
			if status != tt.status || code != tt.code {
				t.Fatalf("%s %s: %d %s; want %d %q", tt.method, tt.path, status, body, tt.status, tt.code)
			}
		})
	}
}

// viaProxy makes requests look as a reverse proxy passes them on: the
// public Host and the forwarding headers.
type viaProxy struct {
	host string
	next http.RoundTripper
}

func (p viaProxy) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = p.host
	r.Header.Set("X-Forwarded-For", "203.0.113.9")
	r.Header.Set("X-Forwarded-Proto", "https")
	return p.next.RoundTrip(r)
}

// TestMCPBehindProxy connects an MCP client to /mcp through a proxy that
// passes the public Host on: with the agent key it lists the tools; the
// Host is checked by the bridge against server.public_url, not refused
// for arriving on a loopback socket.
func TestMCPBehindProxy(t *testing.T) {
	t.Setenv("ASKBRIDGE_TEST_AGENT", "agent-key-behind-the-proxy")
	cfg := bridgeconfig.Default()
	cfg.Agents = []api.AgentSettings{{KeySettings: api.KeySettings{Name: "claude", KeyEnv: "ASKBRIDGE_TEST_AGENT"}}}
	cfg.Server.PublicURL = "https://bridge.example.com"
	b := startEdgeBridge(t, &cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, tt := range []struct{ host, want string }{
		{"bridge.example.com", ""},
		{"evil.example", "Misdirected Request"},
	} {
		t.Run(tt.host, func(t *testing.T) {
			c := &mcpConn{progress: map[string][]string{}}
			cs, err := newMCPClient(c).Connect(ctx, &sdk.StreamableClientTransport{
				Endpoint:   b.url + "/mcp",
				HTTPClient: &http.Client{Transport: bearer{"agent-key-behind-the-proxy", viaProxy{tt.host, http.DefaultTransport}}},
				MaxRetries: -1,
			}, nil)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					if cs != nil {
						_ = cs.Close()
					}
					t.Fatalf("connect with Host %s: %v, want a %s refusal", tt.host, err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("connect through the proxy: %v", err)
			}
			defer cs.Close()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) == 0 || tools.Tools[0].Name == "" {
				t.Fatalf("tools: %+v", tools.Tools)
			}
		})
	}
}
