package edge

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
)

// Hosts is the set of Host header values the bridge answers to. Loopback
// names and addresses are always in it; ports are never compared.
type Hosts struct {
	names map[string]bool // lower case, without a trailing dot
	ips   []netip.Addr    // unmapped, without a zone
}

// NewHosts returns the hosts of a bridge listening on listen (host:port),
// reached at publicURL (may be empty) and under the further names or
// addresses in allowed. Each of them must have passed ParsePublicURL or
// CheckHost; a bad one is an error all the same.
func NewHosts(listen, publicURL string, allowed []string) (*Hosts, error) {
	h := &Hosts{names: map[string]bool{"localhost": true}}
	if host, _, err := net.SplitHostPort(listen); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			if !a.IsUnspecified() {
				h.add(host)
			}
		} else if host != "" {
			h.add(host)
		}
	}
	if publicURL != "" {
		u, err := ParsePublicURL(publicURL)
		if err != nil {
			return nil, err
		}
		h.add(u.Hostname())
	}
	for i, s := range allowed {
		if err := CheckHost(s); err != nil {
			return nil, fmt.Errorf("allowed host %d: %w", i, err)
		}
		h.add(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	}
	return h, nil
}

// add puts a host name or an IP address (without brackets) in the set.
func (h *Hosts) add(host string) {
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap().WithZone("")
		if !slices.Contains(h.ips, a) {
			h.ips = append(h.ips, a)
		}
		return
	}
	h.names[normalName(host)] = true
}

// Allows reports whether header, a request's Host, names the bridge. local
// is the address the connection arrived on (the zero Addr when unknown):
// an IP literal equal to it names the bridge too, since no DNS name is
// involved that a page could rebind.
func (h *Hosts) Allows(header string, local netip.Addr) bool {
	host, ok := hostOf(header)
	if !ok {
		return false
	}
	if a, err := netip.ParseAddr(host); err == nil {
		a = a.Unmap().WithZone("")
		if a.IsLoopback() {
			return true
		}
		if local.IsValid() && a == local.Unmap().WithZone("") {
			return true
		}
		return slices.Contains(h.ips, a)
	}
	return h.names[host]
}

// hostOf returns the host of a Host header ("name", "name:port",
// "1.2.3.4:port", "[v6]:port"): lower case, without port, brackets or a
// trailing dot. ok is false when header is none of those forms (a bare
// IPv6 address, a port that is not a number, nothing at all).
func hostOf(header string) (host string, ok bool) {
	if rest, found := strings.CutPrefix(header, "["); found {
		inner, port, found := strings.Cut(rest, "]")
		if !found || !portOK(port) {
			return "", false
		}
		a, err := netip.ParseAddr(inner)
		if err != nil || !a.Is6() {
			return "", false
		}
		return strings.ToLower(inner), true
	}
	host, port, hasPort := strings.Cut(header, ":")
	if hasPort && !portOK(":"+port) {
		return "", false
	}
	host = normalName(host)
	if host == "" {
		return "", false
	}
	return host, true
}

// portOK reports whether s is empty or ":" followed by digits only.
func portOK(s string) bool {
	if s == "" {
		return true
	}
	digits, ok := strings.CutPrefix(s, ":")
	if !ok || len(digits) > 5 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// normalName lower-cases a host name and drops one trailing dot
// ("localhost." is localhost).
func normalName(s string) string {
	return strings.ToLower(strings.TrimSuffix(s, "."))
}

// ParsePublicURL checks server.public_url: an absolute http or https URL
// with a host, and nothing a browser would not put in an origin besides
// a path.
func ParsePublicURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q is not a URL: %w", s, errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%q must be an absolute URL starting with https:// (or http://), e.g. https://bridge.example.com", s)
	case u.Host == "" || u.Hostname() == "":
		return nil, fmt.Errorf("%q has no host; write it as https://bridge.example.com", s)
	case u.User != nil:
		return nil, fmt.Errorf("%q must not carry a user name or password", s)
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return nil, fmt.Errorf("%q must not have a query or a fragment", s)
	}
	if err := CheckHost(u.Hostname()); err != nil {
		return nil, fmt.Errorf("%q: %w", s, err)
	}
	return u, nil
}

// CheckHost checks one entry of server.allowed_hosts: a host name or an
// IP address, with no scheme, port or path.
func CheckHost(s string) error {
	switch {
	case s == "":
		return errors.New("must not be empty")
	case strings.ContainsAny(s, " \t\r\n"):
		return fmt.Errorf("%q contains white space", s)
	case strings.Contains(s, "://"):
		return fmt.Errorf("%q has a scheme; list the host only, e.g. bridge.lan", s)
	case strings.ContainsAny(s, "/?#@"):
		return fmt.Errorf("%q is not a bare host; list the host only, without a path, e.g. bridge.lan", s)
	case strings.Contains(s, "*"):
		return fmt.Errorf("%q has a wildcard; list each host name the bridge is reached under", s)
	}
	if inner, found := strings.CutPrefix(s, "["); found {
		inner, rest, _ := strings.Cut(inner, "]")
		if a, err := netip.ParseAddr(inner); err != nil || !a.Is6() {
			return fmt.Errorf("%q is not an IPv6 address in brackets", s)
		}
		if rest != "" {
			return fmt.Errorf("%q has a port; list the host only (any port is accepted)", s)
		}
		return nil
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return nil
	}
	if strings.Contains(s, ":") {
		return fmt.Errorf("%q has a port; list the host only (any port is accepted)", s)
	}
	name := strings.TrimSuffix(s, ".")
	if len(name) > 253 {
		return fmt.Errorf("%q is longer than a host name may be (253 characters)", s)
	}
	for label := range strings.SplitSeq(name, ".") {
		if !labelOK(label) {
			return fmt.Errorf("%q is not a host name: use letters, digits, '-' and dots, e.g. bridge.lan", s)
		}
	}
	return nil
}

// labelOK reports whether label is one part of a host name.
func labelOK(label string) bool {
	if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for _, c := range label {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}
