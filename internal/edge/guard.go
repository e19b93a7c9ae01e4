package edge

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
)

// Config says what a Guard lets through.
type Config struct {
	// Listen is the address the server listens on (host:port).
	Listen string
	// PublicURL is server.public_url: its host is a Host the bridge
	// answers to and its origin counts as the bridge's own.
	PublicURL string
	// AllowedHosts is server.allowed_hosts.
	AllowedHosts []string
	// Webhooks are the ServeMux patterns of platform webhooks ("/slack/",
	// "/discord/interactions"): their requests are checked for Host and
	// origin only, since they carry their own signatures or secrets,
	// arrive through proxies and may be form-encoded.
	Webhooks []string
	// AgentKeys is true when the API requires agent keys, ResponderKeys
	// when /v1/commands requires responder keys, and InboxLocked when the
	// web inbox requires a token or is off. What needs no credential is
	// refused through a proxy.
	AgentKeys, ResponderKeys, InboxLocked bool
	// Logger receives the warnings (slog.Default when nil).
	Logger *slog.Logger
}

// Guard is the middleware in front of the whole server; see the package
// documentation for what it refuses.
type Guard struct {
	cfg      Config
	next     http.Handler
	hosts    *Hosts
	webhooks *http.ServeMux
	origins  *http.CrossOriginProtection
	log      *slog.Logger

	hostOnce, proxyOnce sync.Once
}

// webhook marks the patterns of Config.Webhooks in Guard.webhooks.
type webhook struct{}

func (webhook) ServeHTTP(http.ResponseWriter, *http.Request) {}

// New returns a Guard that passes the requests it accepts to next. It
// fails when PublicURL or AllowedHosts is malformed, or a webhook pattern
// is not a ServeMux pattern.
func New(cfg Config, next http.Handler) (g *Guard, err error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	hosts, err := NewHosts(cfg.Listen, cfg.PublicURL, cfg.AllowedHosts)
	if err != nil {
		return nil, fmt.Errorf("edge: %w", err)
	}
	g = &Guard{cfg: cfg, next: next, hosts: hosts, webhooks: http.NewServeMux(),
		origins: http.NewCrossOriginProtection(), log: cfg.Logger}
	if cfg.PublicURL != "" {
		u, err := ParsePublicURL(cfg.PublicURL)
		if err != nil {
			return nil, fmt.Errorf("edge: %w", err)
		}
		if err := g.origins.AddTrustedOrigin(u.Scheme + "://" + u.Host); err != nil {
			return nil, fmt.Errorf("edge: public URL origin: %w", err)
		}
	}
	defer func() {
		// ServeMux.Handle panics on a malformed or duplicate pattern.
		if p := recover(); p != nil {
			g, err = nil, fmt.Errorf("edge: webhook pattern: %v", p)
		}
	}()
	for _, p := range cfg.Webhooks {
		if p == "/" {
			// A webhook at the root (with the web inbox off) takes
			// the root itself, not every path.
			p = "/{$}"
		}
		g.webhooks.Handle(p, webhook{})
	}
	return g, nil
}

// ServeHTTP checks r and passes it on, or refuses it.
func (g *Guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hosts.Allows(r.Host, localAddr(r)) {
		g.hostOnce.Do(func() {
			g.log.Warn("request for an unknown Host refused (add it to server.allowed_hosts if it is this bridge's name)", "host", r.Host, "path", r.URL.Path, "remote", r.RemoteAddr)
		})
		writeError(w, http.StatusMisdirectedRequest, "unknown_host", fmt.Sprintf(
			"Host %q is not one this bridge answers to; add it to server.allowed_hosts or set server.public_url", r.Host))
		return
	}
	hook := g.isWebhook(r)
	if hdr := forwardedBy(r.Header); hdr != "" && !hook {
		if missing := g.missingCredential(r.URL.Path); missing != "" {
			g.proxyOnce.Do(func() {
				g.log.Warn("request through a proxy refused: keys are required behind a proxy", "header", hdr, "path", r.URL.Path, "missing", missing)
			})
			writeError(w, http.StatusForbidden, "proxy_needs_keys", fmt.Sprintf(
				"this request came through a proxy (it carries %s), and %s: keys are required behind a proxy (see docs/security.md)", hdr, missing))
			return
		}
	}
	if err := g.origins.Check(r); err != nil {
		g.log.Debug("cross-site request refused", "path", r.URL.Path, "origin", r.Header.Get("Origin"), "sec_fetch_site", r.Header.Get("Sec-Fetch-Site"))
		writeError(w, http.StatusForbidden, "cross_site", fmt.Sprintf(
			"refused: this %s came from another site's page (Origin %q, Sec-Fetch-Site %q); the bridge takes changes only from its own pages and from programs, which send neither header",
			r.Method, r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site")))
		return
	}
	if !hook && hasBody(r.Method) {
		if ct := r.Header.Get("Content-Type"); !isJSON(ct) && (ct != "" || r.ContentLength != 0) {
			writeError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf(
				"this endpoint takes JSON: send Content-Type: application/json (got %q)", ct))
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// isWebhook reports whether r is for a platform webhook.
func (g *Guard) isWebhook(r *http.Request) bool {
	h, _ := g.webhooks.Handler(r)
	_, ok := h.(webhook)
	return ok
}

// missingCredential names what the part of the bridge at path lacks to be
// safe behind a proxy, or returns "" when it has it.
func (g *Guard) missingCredential(path string) string {
	switch {
	case !g.cfg.AgentKeys:
		return "this bridge has no agent keys (configure agents with key_env)"
	case path == "/v1/commands" && !g.cfg.ResponderKeys:
		return "/v1/commands has no responder keys, so anyone could answer as anyone (configure responders with key_env)"
	case !apiPath(path) && !g.cfg.InboxLocked:
		return "the web inbox has no token (set channels.web.token_env)"
	}
	return ""
}

// apiPath reports whether path belongs to the API or the MCP endpoint;
// every other path belongs to the web inbox mounted at "/".
func apiPath(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/metrics", "/mcp":
		return true
	}
	return strings.HasPrefix(path, "/v1/") || strings.HasPrefix(path, "/mcp/")
}

// forwardedBy returns the first proxy header h carries, or "".
func forwardedBy(h http.Header) string {
	for _, name := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip"} {
		if _, ok := h[name]; ok {
			return name
		}
	}
	return ""
}

// hasBody reports whether requests with method carry a body to decode.
func hasBody(method string) bool {
	return method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch
}

// isJSON reports whether a Content-Type is application/json, with or
// without parameters.
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// localAddr is the address the request's connection arrived on.
func localAddr(r *http.Request) netip.Addr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if a == nil {
		return netip.Addr{}
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr()
}

// writeError writes the API's JSON error answer.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]map[string]string{"error": {"code": code, "message": msg}})
}
