package callback

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// Policy says which callback URLs the bridge may call and which addresses
// it may connect to for them. It is built from the callbacks.allow list;
// each entry is either
//
//   - a URL prefix, "https://hooks.example.com/askbridge/": the scheme and
//     host[:port] must be equal and the path must start with the prefix's
//     path at a "/" boundary;
//   - a host pattern, "hooks.example.com", "hooks.example.com:8443" or
//     "*.example.com": any http(s) URL on that host (and port, when one
//     is named; "*." matches subdomains, not the domain itself);
//   - "*": any http or https URL;
//   - an address range in CIDR form, "127.0.0.0/8", "10.1.2.0/24",
//     "::1/128": the bridge may connect to the addresses in it, and a URL
//     whose host is an IP address in it ("http://127.0.0.1:9000/hook") is
//     allowed.
//
// The URL is checked when a question is asked and before every attempt.
// The address is checked when connecting, on the address the host name
// resolved to (so a name cannot be pointed elsewhere between the check
// and the connection): an internal address (see internalRange: loopback,
// private, link-local, carrier-grade NAT, cloud metadata, multicast, …)
// is refused unless a CIDR entry contains it; a public address is
// connected to.
//
// The empty list allows nothing: a bridge without callbacks.allow calls no
// callback URL. A URL with user:password is always refused. The zero
// Policy is the empty list.
type Policy struct {
	any   bool
	rules []rule
	nets  []netip.Prefix
}

type rule struct {
	scheme   string // empty for host patterns
	host     string // lower case, without the "*." of a wildcard
	wildcard bool
	port     string // empty: any port
	path     string // URL prefixes only
}

// NewPolicy parses an allow list. A malformed entry is an error naming it,
// and so is an entry naming an internal IP address that no CIDR entry of
// the list contains (the bridge would refuse to connect to it).
func NewPolicy(allow []string) (*Policy, error) {
	p := &Policy{}
	type literal struct {
		i    int
		e    string
		addr netip.Addr
	}
	var literals []literal
	for i, e := range allow {
		e = strings.TrimSpace(e)
		if n, ok, err := parseCIDR(e); ok {
			if err != nil {
				return nil, fmt.Errorf("callbacks.allow[%d]: %q %w", i, e, err)
			}
			p.nets = append(p.nets, n)
			continue
		}
		r, err := parseRule(e)
		if err != nil {
			return nil, fmt.Errorf("callbacks.allow[%d]: %q %w", i, e, err)
		}
		if e == "*" {
			p.any = true
			continue
		}
		p.rules = append(p.rules, r)
		if a, err := netip.ParseAddr(r.host); err == nil && !r.wildcard {
			literals = append(literals, literal{i, e, a})
		}
	}
	for _, l := range literals {
		if err := p.dialable(l.addr); err != nil {
			b := err.(*blockedError)
			return nil, fmt.Errorf("callbacks.allow[%d]: %q names %s, a %s address, and the bridge connects to such addresses only when a CIDR entry contains them: add %q (or a wider range) to callbacks.allow",
				l.i, l.e, b.addr, b.what, netip.PrefixFrom(b.addr, b.addr.BitLen()).String())
		}
	}
	return p, nil
}

// parseCIDR reads e as an address range. ok is false when e is not meant
// as one (it has no "/" after an IP address).
func parseCIDR(e string) (n netip.Prefix, ok bool, err error) {
	ip, _, found := strings.Cut(e, "/")
	if !found {
		return n, false, nil
	}
	if _, perr := netip.ParseAddr(ip); perr != nil {
		return n, false, nil
	}
	n, err = netip.ParsePrefix(e)
	if err != nil {
		return n, true, fmt.Errorf("is not an address range such as 10.1.2.0/24 or fd00::/8: %w", err)
	}
	if n.Addr().Zone() != "" {
		return n, true, fmt.Errorf("must not name a zone")
	}
	if n.Addr().Is4In6() && n.Bits() >= 96 {
		n = netip.PrefixFrom(n.Addr().Unmap(), n.Bits()-96)
	}
	if m := n.Masked(); m != n {
		return n, true, fmt.Errorf("has address bits beyond its /%d prefix: write %s", n.Bits(), m)
	}
	return n, true, nil
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
	if h, ok := strings.CutPrefix(host, "["); ok {
		host = strings.TrimSuffix(h, "]")
	}
	if strings.ContainsAny(host, "/?#@ []") {
		return rule{}, fmt.Errorf("is neither a URL prefix, a host[:port] pattern nor an address range such as 10.1.2.0/24")
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

// Empty reports whether p allows no URL at all (no callbacks.allow list).
func (p *Policy) Empty() bool {
	return p == nil || (!p.any && len(p.rules) == 0 && len(p.nets) == 0)
}

// Check reports whether the bridge may call raw. A refusal is a
// *broker.FieldError naming callback_url, so the API answers it with 400.
// Check looks at the URL only; the address it resolves to is checked when
// connecting.
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
	if p.Empty() {
		return &broker.FieldError{Field: "callback_url", Message: "this bridge calls no callback URLs: its callbacks.allow list is empty"}
	}
	return &broker.FieldError{Field: "callback_url", Message: fmt.Sprintf("%s://%s%s is not in the callbacks.allow list of this bridge", u.Scheme, u.Host, u.EscapedPath())}
}

func (p *Policy) allows(u *url.URL) bool {
	if p.Empty() {
		return false
	}
	if p.any {
		return true
	}
	host := strings.ToLower(u.Hostname())
	if a, err := netip.ParseAddr(host); err == nil && p.inNets(a) {
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

// inNets reports whether a CIDR entry contains a.
func (p *Policy) inNets(a netip.Addr) bool {
	if p == nil {
		return false
	}
	a = a.WithZone("").Unmap()
	for _, n := range p.nets {
		if n.Contains(a) {
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
