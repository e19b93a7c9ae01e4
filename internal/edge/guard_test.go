package edge

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/testutil"
)

// request is one request to a guarded server, and what the caller sees.
type request struct {
	name    string
	method  string
	path    string
	host    string
	headers map[string]string
	body    string
	// want is the status; 200 means the request reached the handler.
	want int
	// code is the error code of a refusal; message a part of its text.
	code, message string
}

func (r request) run(t *testing.T, g http.Handler) {
	t.Helper()
	method := r.method
	if method == "" {
		method = http.MethodGet
	}
	req := httptest.NewRequest(method, "http://127.0.0.1:8377"+r.path, strings.NewReader(r.body))
	if r.body == "" {
		req.ContentLength = 0
	}
	if r.host != "" {
		req.Host = r.host
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	if rec.Code != r.want {
		t.Fatalf("%s %s (Host %s): status %d, want %d; body %s", method, r.path, req.Host, rec.Code, r.want, rec.Body)
	}
	if r.want == http.StatusOK {
		if rec.Body.String() != "reached" {
			t.Fatalf("body %q, want the handler's", rec.Body)
		}
		return
	}
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("refusal is not the API's JSON error: %v: %s", err, rec.Body)
	}
	if body.Error.Code != r.code || !strings.Contains(body.Error.Message, r.message) {
		t.Fatalf("refusal %+v, want code %q and a message with %q", body.Error, r.code, r.message)
	}
}

// reached answers "reached", so a test sees the request got through.
var reached = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
	_, _ = w.Write([]byte("reached"))
})

func newGuard(t *testing.T, cfg Config) (*Guard, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:8377"
	}
	g, err := New(cfg, reached)
	if err != nil {
		t.Fatal(err)
	}
	return g, logs
}

const jsonType = "application/json"

func TestGuardKeylessLoopback(t *testing.T) {
	g, _ := newGuard(t, Config{Webhooks: []string{"/slack/", "/discord/interactions"}, InboxLocked: false})
	cmd := `{"text":"/answer k7m2qx 1"}`
	for _, r := range []request{
		{name: "cli ask", method: "POST", path: "/v1/questions", headers: map[string]string{"Content-Type": jsonType}, body: `{}`, want: 200},
		{name: "json with charset", method: "POST", path: "/v1/commands", headers: map[string]string{"Content-Type": "application/json; charset=utf-8"}, body: cmd, want: 200},
		{name: "cancel without body", method: "POST", path: "/v1/questions/k7m2qx/cancel", want: 200},
		{name: "file of an answer", path: "/v1/questions/k7m2qx/attachments/1", want: 200},
		{name: "inbox answer with files", method: "POST", path: "/inbox/answer", host: "localhost:8377",
			headers: map[string]string{"Content-Type": jsonType, "Origin": "http://localhost:8377", "Sec-Fetch-Site": "same-origin"}, body: `{"files":[]}`, want: 200},
		{name: "rebinding file read", path: "/v1/questions/k7m2qx/attachments/1", host: "evil.example:8377", want: 421, code: "unknown_host"},
		{name: "inbox answer as a form", method: "POST", path: "/inbox/answer",
			headers: map[string]string{"Content-Type": "multipart/form-data; boundary=x"}, body: "--x--", want: 415, code: "unsupported_media_type"},
		{name: "inbox page", path: "/", host: "localhost:8377", want: 200},
		{name: "inbox state ::1", path: "/inbox/state", host: "[::1]:8377", want: 200},
		{name: "same-origin inbox post", method: "POST", path: "/inbox/command", host: "localhost:8377",
			headers: map[string]string{"Content-Type": jsonType, "Origin": "http://localhost:8377", "Sec-Fetch-Site": "same-origin"}, body: cmd, want: 200},
		{name: "old browser same origin", method: "POST", path: "/inbox/command",
			headers: map[string]string{"Content-Type": jsonType, "Origin": "http://127.0.0.1:8377"}, body: cmd, want: 200},
		{name: "mcp", method: "POST", path: "/mcp", headers: map[string]string{"Content-Type": jsonType}, body: `{}`, want: 200},
		{name: "mcp delete", method: "DELETE", path: "/mcp", want: 200},

		{name: "rebinding read", path: "/inbox/state", host: "evil.example:8377", want: 421, code: "unknown_host",
			message: `Host "evil.example:8377" is not one this bridge answers to; add it to server.allowed_hosts or set server.public_url`},
		{name: "rebinding post", method: "POST", path: "/inbox/command", host: "evil.example:8377",
			headers: map[string]string{"Content-Type": jsonType}, body: cmd, want: 421, code: "unknown_host", message: "server.allowed_hosts"},
		{name: "rebinding webhook", method: "POST", path: "/slack/events", host: "localhost.evil.example", want: 421, code: "unknown_host"},
		{name: "rebinding health", path: "/healthz", host: "127.0.0.1.evil.example:8377", want: 421, code: "unknown_host"},

		{name: "no-cors text/plain", method: "POST", path: "/v1/commands",
			headers: map[string]string{"Content-Type": "text/plain;charset=UTF-8"}, body: cmd, want: 415, code: "unsupported_media_type", message: "Content-Type: application/json"},
		{name: "form post", method: "POST", path: "/v1/questions",
			headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, body: "a=b", want: 415, code: "unsupported_media_type"},
		{name: "body without type", method: "POST", path: "/v1/commands", body: cmd, want: 415, code: "unsupported_media_type"},
		{name: "empty form", method: "POST", path: "/v1/questions/k7m2qx/cancel",
			headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, want: 415, code: "unsupported_media_type"},
		{name: "json lookalike", method: "POST", path: "/inbox/command",
			headers: map[string]string{"Content-Type": "application/jsonp"}, body: cmd, want: 415, code: "unsupported_media_type"},
		{name: "webhook form", method: "POST", path: "/slack/interactions",
			headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, body: "payload=x", want: 200},

		{name: "cross-site fetch", method: "POST", path: "/v1/commands",
			headers: map[string]string{"Content-Type": jsonType, "Sec-Fetch-Site": "cross-site", "Origin": "http://localhost:9999"}, body: cmd, want: 403, code: "cross_site"},
		{name: "same-site fetch", method: "POST", path: "/v1/questions/k7m2qx/cancel",
			headers: map[string]string{"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:9999"}, want: 403, code: "cross_site"},
		{name: "old browser other origin", method: "POST", path: "/inbox/command",
			headers: map[string]string{"Content-Type": jsonType, "Origin": "http://127.0.0.1:9999"}, body: cmd, want: 403, code: "cross_site", message: "another site"},
		{name: "null origin", method: "POST", path: "/v1/questions",
			headers: map[string]string{"Content-Type": jsonType, "Origin": "null"}, body: `{}`, want: 403, code: "cross_site"},
		{name: "cross-site read is not a change", path: "/v1/questions", headers: map[string]string{"Sec-Fetch-Site": "cross-site"}, want: 200},

		{name: "proxied ask", method: "POST", path: "/v1/questions", headers: map[string]string{"Content-Type": jsonType, "X-Forwarded-For": "203.0.113.9"},
			body: `{}`, want: 403, code: "proxy_needs_keys", message: "this bridge has no agent keys"},
		{name: "proxied inbox", path: "/", headers: map[string]string{"X-Forwarded-Proto": "https"}, want: 403, code: "proxy_needs_keys", message: "X-Forwarded-Proto"},
		{name: "proxied health", path: "/healthz", headers: map[string]string{"Forwarded": "for=203.0.113.9"}, want: 403, code: "proxy_needs_keys"},
		{name: "proxied X-Real-IP", path: "/inbox/state", headers: map[string]string{"X-Real-IP": "203.0.113.9"}, want: 403, code: "proxy_needs_keys"},
		{name: "proxied host", path: "/v1/questions", headers: map[string]string{"X-Forwarded-Host": "bridge.example.com"}, want: 403, code: "proxy_needs_keys"},
		{name: "webhook prefix, unclean path", method: "POST", path: "/slack/../v1/commands", headers: map[string]string{"X-Forwarded-For": "203.0.113.9", "Content-Type": "text/plain"},
			body: `{}`, want: 403, code: "proxy_needs_keys"},
		{name: "webhook exact path only", method: "POST", path: "/discord/interactions/x", headers: map[string]string{"Content-Type": "text/plain"}, body: `{}`, want: 415, code: "unsupported_media_type"},
		{name: "proxied webhook", method: "POST", path: "/discord/interactions", headers: map[string]string{"X-Forwarded-For": "203.0.113.9", "Content-Type": jsonType}, body: `{}`, want: 200},
	} {
		t.Run(r.name, func(t *testing.T) { r.run(t, g) })
	}
}

func TestGuardBehindProxy(t *testing.T) {
	fwd := map[string]string{"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
	with := func(h map[string]string, more ...string) map[string]string {
		out := map[string]string{}
		for k, v := range h {
			out[k] = v
		}
		for i := 0; i+1 < len(more); i += 2 {
			out[more[i]] = more[i+1]
		}
		return out
	}
	tests := []struct {
		name string
		cfg  Config
		reqs []request
	}{
		{name: "agent keys, no responders, open inbox", cfg: Config{AgentKeys: true, PublicURL: "https://bridge.example.com"}, reqs: []request{
			{name: "ask", method: "POST", path: "/v1/questions", host: "bridge.example.com", headers: with(fwd, "Content-Type", jsonType), body: `{}`, want: 200},
			{name: "mcp", method: "POST", path: "/mcp", host: "bridge.example.com", headers: with(fwd, "Content-Type", jsonType), body: `{}`, want: 200},
			{name: "commands", method: "POST", path: "/v1/commands", host: "bridge.example.com", headers: with(fwd, "Content-Type", jsonType), body: `{"user":"anyone"}`,
				want: 403, code: "proxy_needs_keys", message: "no responder keys"},
			{name: "inbox", path: "/inbox/state", host: "bridge.example.com", headers: fwd, want: 403, code: "proxy_needs_keys", message: "channels.web.token_env"},
			{name: "unknown host", path: "/v1/questions", host: "other.example.com", headers: fwd, want: 421, code: "unknown_host"},
		}},
		{name: "all keys", cfg: Config{AgentKeys: true, ResponderKeys: true, InboxLocked: true, PublicURL: "https://bridge.example.com"}, reqs: []request{
			{name: "commands", method: "POST", path: "/v1/commands", host: "bridge.example.com", headers: with(fwd, "Content-Type", jsonType), body: `{}`, want: 200},
			{name: "inbox post from its page", method: "POST", path: "/inbox/command", host: "bridge.example.com",
				headers: with(fwd, "Content-Type", jsonType, "Origin", "https://bridge.example.com", "Sec-Fetch-Site", "same-origin"), body: `{}`, want: 200},
			{name: "inbox post, host rewritten by the proxy", method: "POST", path: "/inbox/command", host: "127.0.0.1:8377",
				headers: with(fwd, "Content-Type", jsonType, "Origin", "https://bridge.example.com"), body: `{}`, want: 200},
			{name: "inbox post from another site", method: "POST", path: "/inbox/command", host: "bridge.example.com",
				headers: with(fwd, "Content-Type", jsonType, "Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"), body: `{}`, want: 403, code: "cross_site"},
			{name: "text/plain", method: "POST", path: "/inbox/command", host: "bridge.example.com",
				headers: with(fwd, "Content-Type", "text/plain"), body: `{}`, want: 415, code: "unsupported_media_type"},
		}},
		{name: "lan name", cfg: Config{Listen: "0.0.0.0:8377", AllowedHosts: []string{"bridge.lan"}, AgentKeys: true, ResponderKeys: true, InboxLocked: true}, reqs: []request{
			{name: "lan name", path: "/v1/questions", host: "bridge.lan:8377", want: 200},
			{name: "loopback", path: "/v1/questions", host: "127.0.0.1:8377", want: 200},
			{name: "other name", path: "/v1/questions", host: "bridge.example.com", want: 421, code: "unknown_host"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := newGuard(t, tt.cfg)
			for _, r := range tt.reqs {
				t.Run(r.name, func(t *testing.T) { r.run(t, g) })
			}
		})
	}
}

// TestGuardProxyWarnsOnce checks the operator hears of a keyless bridge
// behind a proxy once, not once per request.
func TestGuardProxyWarnsOnce(t *testing.T) {
	g, logs := newGuard(t, Config{})
	r := request{path: "/v1/questions", headers: map[string]string{"X-Forwarded-For": "203.0.113.9"}, want: 403, code: "proxy_needs_keys"}
	for range 3 {
		r.run(t, g)
	}
	if n := strings.Count(logs.String(), "keys are required behind a proxy"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, logs)
	}
}

func TestGuardWebhookAtRoot(t *testing.T) {
	// With the web inbox off, a Telegram webhook may sit at "/": that
	// exempts the root, not every path.
	g, _ := newGuard(t, Config{Webhooks: []string{"/"}})
	fwd := map[string]string{"X-Forwarded-For": "203.0.113.9", "Content-Type": jsonType}
	request{method: "POST", path: "/", headers: fwd, body: `{}`, want: 200}.run(t, g)
	request{method: "POST", path: "/v1/questions", headers: fwd, body: `{}`, want: 403, code: "proxy_needs_keys"}.run(t, g)
}

func TestNewRefusesBadSettings(t *testing.T) {
	for _, cfg := range []Config{
		{Listen: "127.0.0.1:8377", PublicURL: "bridge.example.com"},
		{Listen: "127.0.0.1:8377", AllowedHosts: []string{"bridge.lan:80"}},
		{Listen: "127.0.0.1:8377", Webhooks: []string{"slack/"}},
	} {
		if _, err := New(cfg, reached); err == nil {
			t.Errorf("New(%+v) accepted it", cfg)
		}
	}
}

// TestLocalAddrOfTCP: the address a request arrived on, read from a TCP
// address without formatting it, is what parsing its text gives: IPv4 in
// either form, IPv6, and a zone.
func TestLocalAddrOfTCP(t *testing.T) {
	for _, a := range []*net.TCPAddr{
		{IP: net.ParseIP("127.0.0.1"), Port: 8377}, // 16-byte form
		{IP: net.IPv4(10, 0, 0, 1).To4(), Port: 80},
		{IP: net.ParseIP("::1"), Port: 8377},
		{IP: net.ParseIP("::ffff:192.0.2.1"), Port: 1},
		{IP: net.ParseIP("fe80::1"), Port: 9, Zone: "eth0"},
		{IP: net.ParseIP("2001:db8::5"), Port: 443},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, net.Addr(a)))
		want := netip.MustParseAddrPort(a.String()).Addr()
		if got := localAddr(r); got != want {
			t.Errorf("localAddr(%s) = %v, want %v", a, got, want)
		}
	}
}
