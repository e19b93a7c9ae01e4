package callback

import (
	"fmt"
	"net/netip"
)

// internalRanges are the addresses the bridge connects to only when a CIDR
// entry of callbacks.allow contains them: this machine, private networks,
// link-local and cloud metadata endpoints, and addresses that are no
// single public host. The first range containing an address names it.
var internalRanges = []struct {
	net  netip.Prefix
	what string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network (0.0.0.0 reaches this machine)"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (cloud metadata)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments (cloud metadata)"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("168.63.129.16/32"), "cloud metadata"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved or broadcast"},
	{netip.MustParsePrefix("::/128"), "unspecified (:: reaches this machine)"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (private, cloud metadata)"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Ranges of IPv6 addresses that carry an IPv4 address, which is checked
// too: a NAT64 or 6to4 gateway would connect to it.
var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	nat64l  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToV4 = netip.MustParsePrefix("2002::/16")
)

// internalRange reports whether a is an internal address, and names its
// range. IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) are their IPv4
// address.
func internalRange(a netip.Addr) (string, bool) {
	a = a.WithZone("").Unmap()
	for _, r := range internalRanges {
		if r.net.Contains(a) {
			return r.what, true
		}
	}
	if a.Is6() {
		b := a.As16()
		var v4 netip.Addr
		switch {
		case nat64.Contains(a), nat64l.Contains(a):
			v4 = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixToV4.Contains(a):
			v4 = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
		}
		if v4.IsValid() {
			if what, ok := internalRange(v4); ok {
				return fmt.Sprintf("%s by way of %s", what, v4), true
			}
		}
	}
	return "", false
}

// blockedError is a connection the Policy refused: the address is
// internal and no CIDR entry of callbacks.allow contains it.
type blockedError struct {
	addr netip.Addr
	what string
}

func (e *blockedError) Error() string {
	return fmt.Sprintf("callback: %s is a %s address and no CIDR entry of callbacks.allow contains it", e.addr, e.what)
}

// dialable reports whether the bridge may connect to a: a public address,
// or one inside a CIDR entry. A refusal is a *blockedError.
func (p *Policy) dialable(a netip.Addr) error {
	a = a.WithZone("").Unmap()
	if p.inNets(a) {
		return nil
	}
	if what, ok := internalRange(a); ok {
		return &blockedError{addr: a, what: what}
	}
	return nil
}

// checkDial is the dial-time check of address, an "ip:port" that the
// dialer is about to connect to.
func (p *Policy) checkDial(address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("callback: refusing to connect to %q: not an IP address and port: %w", address, err)
	}
	return p.dialable(ap.Addr())
}
