package callback

import (
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/broker"
)

func TestPolicy(t *testing.T) {
	tests := []struct {
		name  string
		allow []string
		url   string
		ok    bool
		says  string
	}{
		{"empty list: loopback", nil, "http://127.0.0.1:9000/hook", false, "callbacks.allow list is empty"},
		{"empty list: localhost", nil, "http://localhost:9000/hook", false, "callbacks.allow list is empty"},
		{"empty list: remote host", nil, "https://hooks.example.com/x", false, "callbacks.allow list is empty"},
		{"not http", []string{"*"}, "ftp://hooks.example.com/x", false, "http or https"},
		{"credentials", []string{"*"}, "http://user:pw@hooks.example.com/x", false, "user name or password"},
		{"host pattern", []string{"hooks.example.com"}, "https://hooks.example.com/any/path", true, ""},
		{"host pattern: other host", []string{"hooks.example.com"}, "https://hooks.example.com.evil.net/x", false, "not in the callbacks.allow list"},
		{"host pattern: not loopback", []string{"hooks.example.com"}, "http://127.0.0.1/x", false, "not in the callbacks.allow list"},
		{"host:port", []string{"hooks.example.com:8443"}, "https://hooks.example.com:8443/x", true, ""},
		{"host:port: other port", []string{"hooks.example.com:8443"}, "https://hooks.example.com/x", false, "not in"},
		{"wildcard subdomain", []string{"*.example.com"}, "https://a.b.example.com/x", true, ""},
		{"wildcard: not the domain itself", []string{"*.example.com"}, "https://example.com/x", false, "not in"},
		{"prefix", []string{"https://hooks.example.com/askbridge/"}, "https://hooks.example.com/askbridge/agent1", true, ""},
		{"prefix: other path", []string{"https://hooks.example.com/askbridge/"}, "https://hooks.example.com/admin", false, "not in"},
		{"prefix: path boundary", []string{"https://hooks.example.com/askbridge"}, "https://hooks.example.com/askbridge-evil", false, "not in"},
		{"prefix: same path", []string{"https://hooks.example.com/askbridge"}, "https://hooks.example.com/askbridge", true, ""},
		{"prefix: scheme must match", []string{"https://hooks.example.com/"}, "http://hooks.example.com/x", false, "not in"},
		{"prefix: default port", []string{"https://hooks.example.com/"}, "https://hooks.example.com:443/x", true, ""},
		{"star", []string{"*"}, "https://anything.example.org/x", true, ""},
		{"case-insensitive host", []string{"Hooks.Example.com"}, "https://HOOKS.example.COM/x", true, ""},
		{"CIDR: address inside", []string{"127.0.0.0/8"}, "http://127.0.0.1:9000/hook", true, ""},
		{"CIDR: other loopback address", []string{"127.0.0.0/8"}, "http://127.9.9.9/hook", true, ""},
		{"CIDR: IPv6", []string{"::1/128"}, "http://[::1]:9000/hook", true, ""},
		{"CIDR: IPv4-mapped", []string{"127.0.0.0/8"}, "http://[::ffff:127.0.0.1]:9000/hook", true, ""},
		{"CIDR: address outside", []string{"127.0.0.2/32"}, "http://127.0.0.1:9000/hook", false, "not in"},
		{"CIDR: not a name", []string{"127.0.0.0/8"}, "http://localhost:9000/hook", false, "not in"},
		{"CIDR and name", []string{"localhost", "127.0.0.0/8"}, "http://localhost:9000/hook", true, ""},
		{"IP literal entry with its CIDR", []string{"http://127.0.0.1:9000/hooks/", "127.0.0.1/32"}, "http://127.0.0.1:9000/hooks/a", true, ""},
		{"public IP literal entry", []string{"203.0.113.7"}, "https://203.0.113.7/x", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPolicy(tt.allow)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Check(tt.url)
			if (err == nil) != tt.ok {
				t.Fatalf("Check(%q) with allow %q = %v, want ok %v", tt.url, tt.allow, err, tt.ok)
			}
			if err == nil {
				return
			}
			var fe *broker.FieldError
			if !errors.As(err, &fe) || fe.Field != "callback_url" || !errors.Is(err, broker.ErrInvalid) {
				t.Errorf("Check error %v is not a FieldError naming callback_url", err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("Check error %q does not say %q", err, tt.says)
			}
		})
	}
}

func TestNewPolicyRejectsBadEntries(t *testing.T) {
	tests := []struct {
		entry string
		says  string
	}{
		{"", "is empty"},
		{"ftp://x/", "not an http(s) URL prefix"},
		{"https://u:p@x/", "without credentials"},
		{"https://x/?q=1", "without credentials, query"},
		{"a*.example.com", "misplaced wildcard"},
		{"host/path", "neither a URL prefix"},
		{"*.", "misplaced wildcard"},
		{"10.0.0.0/33", "not an address range"},
		{"10.1.2.3/24", "write 10.1.2.0/24"},
		{"fe80::1%eth0/64", "zone"},
		// An internal address named without a CIDR entry containing it
		// could never be connected to.
		{"http://127.0.0.1:9000/", `add "127.0.0.1/32"`},
		{"10.0.0.7", `add "10.0.0.7/32"`},
		{"[::1]:9000", `add "::1/128"`},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			_, err := NewPolicy([]string{"ok.example.com", tt.entry})
			if err == nil || !strings.Contains(err.Error(), "callbacks.allow[1]") || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("NewPolicy(%q) = %v, want an error naming callbacks.allow[1] that says %q", tt.entry, err, tt.says)
			}
		})
	}
}

// The address ranges refused unless allowed: every internal kind, in its
// IPv4, IPv6, IPv4-mapped and NAT64 spellings; public addresses pass.
func TestInternalRanges(t *testing.T) {
	tests := []struct {
		addr     string
		internal bool
	}{
		{"127.0.0.1", true}, {"127.255.0.9", true}, {"::1", true}, {"::ffff:127.0.0.1", true},
		{"0.0.0.0", true}, {"::", true},
		{"10.0.0.5", true}, {"172.16.0.1", true}, {"172.31.255.255", true}, {"192.168.1.1", true},
		{"fd00::1", true}, {"fd00:ec2::254", true},
		{"169.254.169.254", true}, {"fe80::1", true}, {"168.63.129.16", true}, {"100.100.100.200", true},
		{"100.64.0.1", true}, {"192.0.0.192", true}, {"198.18.0.1", true},
		{"224.0.0.1", true}, {"239.255.255.250", true}, {"ff02::1", true}, {"255.255.255.255", true},
		{"::ffff:10.0.0.1", true}, {"::127.0.0.1", true}, {"64:ff9b::7f00:1", true}, {"64:ff9b::a9fe:a9fe", true}, {"2002:7f00:1::1", true},
		{"93.184.216.34", false}, {"8.8.8.8", false}, {"172.32.0.1", false}, {"100.128.0.1", false},
		{"2606:4700::1111", false}, {"64:ff9b::808:808", false}, {"::ffff:8.8.8.8", false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			what, got := internalRange(netip.MustParseAddr(tt.addr))
			if got != tt.internal {
				t.Errorf("internalRange(%s) = %q %v, want internal %v", tt.addr, what, got, tt.internal)
			}
			p := mustPolicy(t, "*")
			if err := p.checkDial(netip.AddrPortFrom(netip.MustParseAddr(tt.addr), 443).String()); (err != nil) != tt.internal {
				t.Errorf("checkDial(%s) with allow [*] = %v, want refused %v", tt.addr, err, tt.internal)
			}
		})
	}
}
