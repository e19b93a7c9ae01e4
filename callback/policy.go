package callback

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// Policy says which callback URLs the bridge may call. It is built from
// the callbacks.allow list; each entry is either
//
//   - a URL prefix, "https://hooks.example.com/askbridge/": the scheme and
//     host[:port] must be equal and the path must start with the prefix's
//     path at a "/" boundary;
//   - a host pattern, "hooks.example.com", "hooks.example.com:8443" or
//     "*.example.com": any http(s) URL on that host (and port, when one
//     is named; "*." matches subdomains, not the domain itself);
//   - "*": any http or https URL (only for bridges that cannot reach
//     anything sensitive).
//
// An empty list allows loopback hosts only (localhost, 127.0.0.0/8, ::1),
// and then the connection itself is checked too: a name that resolves
// beyond loopback is refused when dialling. A URL with user:password is
// always refused. The zero Policy is the empty list.
type Policy struct {
	any   bool
	rules []rule
}

type rule struct {
	scheme   string // empty for host patterns
	host     string // lower case, without the "*." of a wildcard
	wildcard bool
	port     string // empty: any port
	path     string // URL prefixes only
}

// NewPolicy parses an allow list. A malformed entry is an error naming it.
func NewPolicy(allow []string) (*Policy, error) {
	p := &Policy{}
	for i, e := range allow {
		e = strings.TrimSpace(e)
		r, err := parseRule(e)
		if err != nil {
			return nil, fmt.Errorf("callbacks.allow[%d]: %q %w", i, e, err)
		}
		if e == "*" {
			p.any = true
			continue
		}
		p.rules = append(p.rules, r)
	}
	return p, nil
}

func parseRule(e string) (rule, error) {
	switch {
	case e == "":
		return rule{}, fmt.Errorf("is empty")
	case e == "*":
		return rule{}, nil
	case strings.Contains(e, "://"):
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return rule{}, fmt.Errorf("is not an http(s) URL prefix such as https://hooks.example.com/askbridge/")
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return rule{}, fmt.Errorf("must be scheme://host[:port][/path] without credentials, query or fragment")
		}
		return rule{scheme: u.Scheme, host: strings.ToLower(u.Hostname()), port: u.Port(), path: u.EscapedPath()}, nil
	}
	r := rule{}
	host := e
	if h, port, err := net.SplitHostPort(e); err == nil {
		host, r.port = h, port
	}
	if strings.ContainsAny(host, "/?#@ ") {
		return rule{}, fmt.Errorf("is neither a URL prefix nor a host[:port] pattern")
	}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		host, r.wildcard = rest, true
	}
	if host == "" || strings.Contains(host, "*") {
		return rule{}, fmt.Errorf("has a misplaced wildcard: only a leading \"*.\" is allowed")
	}
	r.host = strings.ToLower(host)
	return r, nil
}

// LoopbackOnly reports whether p allows loopback hosts only (the empty
// list).
func (p *Policy) LoopbackOnly() bool { return p == nil || (!p.any && len(p.rules) == 0) }

// Check reports whether the bridge may call raw. A refusal is a
// *broker.FieldError naming callback_url, so the API answers it with 400.
func (p *Policy) Check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &broker.FieldError{Field: "callback_url", Message: fmt.Sprintf("must be an absolute http or https URL, got %q", raw)}
	}
	if u.User != nil {
		return &broker.FieldError{Field: "callback_url", Message: "must not carry a user name or password; callbacks are authenticated by their signature"}
	}
	if p.allows(u) {
		return nil
	}
	if p.LoopbackOnly() {
		return &broker.FieldError{Field: "callback_url", Message: fmt.Sprintf("host %q is not allowed: with no callbacks.allow list only loopback hosts (localhost, 127.0.0.1, ::1) may receive callbacks", u.Hostname())}
	}
	return &broker.FieldError{Field: "callback_url", Message: fmt.Sprintf("%s://%s%s is not in the callbacks.allow list of this bridge", u.Scheme, u.Host, u.EscapedPath())}
}

func (p *Policy) allows(u *url.URL) bool {
	host := strings.ToLower(u.Hostname())
	if p.LoopbackOnly() {
		return isLoopbackHost(host)
	}
	if p.any {
		return true
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	for _, r := range p.rules {
		if r.match(u.Scheme, host, port, u.EscapedPath()) {
			return true
		}
	}
	return false
}

func (r rule) match(scheme, host, port, path string) bool {
	if r.scheme != "" && r.scheme != scheme {
		return false
	}
	if r.wildcard {
		if !strings.HasSuffix(host, "."+r.host) {
			return false
		}
	} else if host != r.host {
		return false
	}
	rp := r.port
	if rp == "" && r.scheme != "" {
		rp = map[string]string{"http": "80", "https": "443"}[r.scheme]
	}
	if rp != "" && rp != port {
		return false
	}
	if r.scheme == "" || r.path == "" || r.path == "/" {
		return true
	}
	if strings.HasSuffix(r.path, "/") {
		return strings.HasPrefix(path, r.path)
	}
	return path == r.path || strings.HasPrefix(path, r.path+"/")
}

// isLoopbackHost reports whether host names this machine: "localhost"
// (and names under .localhost) or a loopback IP address.
func isLoopbackHost(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
