package edge

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"path"
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
	// Webhooks are the paths of platform webhooks, as mounted on the
	// server's ServeMux: "/discord/interactions" is that path, "/slack/"
	// every path under it. Their requests are checked for Host and origin
	// only, since they carry their own signatures or secrets, arrive
	// through proxies and may be form-encoded.
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
	webhooks webhooks
	origins  *http.CrossOriginProtection
	log      *slog.Logger

	hostOnce, proxyOnce sync.Once
}

// New returns a Guard that passes the requests it accepts to next. It
// fails when PublicURL or AllowedHosts is malformed, or a webhook path
// does not start with "/".
func New(cfg Config, next http.Handler) (*Guard, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	hosts, err := NewHosts(cfg.Listen, cfg.PublicURL, cfg.AllowedHosts)
	if err != nil {
		return nil, fmt.Errorf("edge: %w", err)
	}
	hooks, err := newWebhooks(cfg.Webhooks)
	if err != nil {
		return nil, fmt.Errorf("edge: %w", err)
	}
	g := &Guard{cfg: cfg, next: next, hosts: hosts, webhooks: hooks,
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
	hook := g.webhooks.match(r.URL.Path)
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
	if ct == "application/json" || ct == "application/json; charset=utf-8" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// localAddr is the address the request's connection arrived on.
func localAddr(r *http.Request) netip.Addr {
	a, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if a == nil {
		return netip.Addr{}
	}
	if t, ok := a.(*net.TCPAddr); ok {
		// What parsing its text gives, without the text.
		return t.AddrPort().Addr().Unmap()
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

// webhooks are the paths of Config.Webhooks.
type webhooks struct {
	exact    map[string]bool
	prefixes []string // ending in "/"
}

func newWebhooks(paths []string) (webhooks, error) {
	w := webhooks{exact: map[string]bool{}}
	for _, p := range paths {
		switch {
		case !strings.HasPrefix(p, "/"):
			return w, fmt.Errorf("webhook path %q must start with /", p)
		case p == "/":
			// A webhook at the root (with the web inbox off) takes the
			// root itself, not every path.
			w.exact[p] = true
		case strings.HasSuffix(p, "/"):
			w.prefixes = append(w.prefixes, p)
		default:
			w.exact[p] = true
		}
	}
	return w, nil
}

// match reports whether p is a webhook's path. A path that is not clean
// ("/slack/../v1/commands") is never one: the server redirects it to its
// clean form, which is checked in its own right.
func (w webhooks) match(p string) bool {
	if w.exact[p] {
		return true
	}
	for _, pre := range w.prefixes {
		if strings.HasPrefix(p, pre) && path.Clean(p) == strings.TrimSuffix(p, "/") {
			return true
		}
	}
	return false
}
