package edge

import (
	"net/netip"
	"strings"
	"testing"
)

func TestHostsAllows(t *testing.T) {
	lan := netip.MustParseAddr("192.168.1.5")
	tests := []struct {
		name    string
		listen  string
		public  string
		allowed []string
		host    string
		local   netip.Addr
		want    bool
	}{
		{name: "localhost", listen: "127.0.0.1:8377", host: "localhost", want: true},
		{name: "localhost with port", listen: "127.0.0.1:8377", host: "localhost:8377", want: true},
		{name: "localhost other port", listen: "127.0.0.1:8377", host: "localhost:9", want: true},
		{name: "localhost upper case", listen: "127.0.0.1:8377", host: "LocalHost:8377", want: true},
		{name: "localhost trailing dot", listen: "127.0.0.1:8377", host: "localhost.:8377", want: true},
		{name: "127.0.0.1", listen: "127.0.0.1:8377", host: "127.0.0.1:8377", want: true},
		{name: "127.0.0.1 no port", listen: "127.0.0.1:8377", host: "127.0.0.1", want: true},
		{name: "127.5.6.7", listen: "127.0.0.1:8377", host: "127.5.6.7:1", want: true},
		{name: "::1 bracketed", listen: "127.0.0.1:8377", host: "[::1]:8377", want: true},
		{name: "::1 bracketed no port", listen: "127.0.0.1:8377", host: "[::1]", want: true},
		{name: "::1 long form", listen: "127.0.0.1:8377", host: "[0:0:0:0:0:0:0:1]:8377", want: true},
		{name: "v4-mapped loopback", listen: "127.0.0.1:8377", host: "[::ffff:127.0.0.1]:8377", want: true},
		{name: "::1 without brackets", listen: "127.0.0.1:8377", host: "::1", want: false},
		{name: "::1 bad port", listen: "127.0.0.1:8377", host: "[::1]x", want: false},
		{name: "v4 in brackets", listen: "127.0.0.1:8377", host: "[127.0.0.1]:8377", want: false},
		{name: "rebinding name", listen: "127.0.0.1:8377", host: "evil.example:8377", want: false},
		{name: "localhost prefix", listen: "127.0.0.1:8377", host: "localhost.evil.example:8377", want: false},
		{name: "loopback ip prefix", listen: "127.0.0.1:8377", host: "127.0.0.1.evil.example:8377", want: false},
		{name: "sub of localhost", listen: "127.0.0.1:8377", host: "a.localhost:8377", want: false},
		{name: "hex ip", listen: "127.0.0.1:8377", host: "0x7f000001:8377", want: false},
		{name: "port not a number", listen: "127.0.0.1:8377", host: "localhost:http", want: false},
		{name: "empty", listen: "127.0.0.1:8377", host: "", want: false},
		{name: "port only", listen: "127.0.0.1:8377", host: ":8377", want: false},
		{name: "other v6", listen: "127.0.0.1:8377", host: "[2001:db8::1]:8377", want: false},
		{name: "listen address", listen: "192.168.1.5:8377", host: "192.168.1.5:8377", want: true},
		{name: "listen address v6", listen: "[2001:db8::5]:8377", host: "[2001:db8::5]", want: true},
		{name: "listen name", listen: "bridge.lan:8377", host: "BRIDGE.lan:8377", want: true},
		{name: "wildcard listen adds nothing", listen: "0.0.0.0:8377", host: "0.0.0.0:8377", want: false},
		{name: "wildcard v6 listen adds nothing", listen: "[::]:8377", host: "[::]:8377", want: false},
		{name: "connection's own address", listen: "0.0.0.0:8377", host: "192.168.1.5:8377", local: lan, want: true},
		{name: "another address than the connection's", listen: "0.0.0.0:8377", host: "192.168.1.6:8377", local: lan, want: false},
		{name: "public url host", listen: "127.0.0.1:8377", public: "https://bridge.example.com", host: "bridge.example.com", want: true},
		{name: "public url host other port", listen: "127.0.0.1:8377", public: "https://bridge.example.com:8443/ask", host: "bridge.example.com:443", want: true},
		{name: "public url suffix trick", listen: "127.0.0.1:8377", public: "https://bridge.example.com", host: "bridge.example.com.evil.example", want: false},
		{name: "allowed name", listen: "127.0.0.1:8377", allowed: []string{"bridge.lan"}, host: "bridge.lan:8377", want: true},
		{name: "allowed ip", listen: "127.0.0.1:8377", allowed: []string{"10.0.0.2"}, host: "10.0.0.2", want: true},
		{name: "allowed v6 bare", listen: "127.0.0.1:8377", allowed: []string{"2001:db8::2"}, host: "[2001:db8::2]:8377", want: true},
		{name: "allowed v6 bracketed", listen: "127.0.0.1:8377", allowed: []string{"[2001:DB8::2]"}, host: "[2001:db8:0::2]", want: true},
		{name: "not allowed sibling", listen: "127.0.0.1:8377", allowed: []string{"bridge.lan"}, host: "other.lan", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHosts(tt.listen, tt.public, tt.allowed)
			if err != nil {
				t.Fatal(err)
			}
			if got := h.Allows(tt.host, tt.local); got != tt.want {
				t.Errorf("Allows(%q) = %v, want %v", tt.host, got, tt.want)
			}
		})
	}
}

func TestCheckHost(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" means valid; else a part of the error
	}{
		{"bridge.lan", ""},
		{"bridge.lan.", ""},
		{"Bridge-1.example.com", ""},
		{"10.0.0.2", ""},
		{"2001:db8::2", ""},
		{"[2001:db8::2]", ""},
		{"", "must not be empty"},
		{"https://bridge.lan", "has a scheme"},
		{"bridge.lan:8080", "has a port"},
		{"[2001:db8::2]:8080", "has a port"},
		{"[10.0.0.2]", "not an IPv6 address"},
		{"bridge.lan/inbox", "without a path"},
		{"*.example.com", "wildcard"},
		{"bridge lan", "white space"},
		{"-bridge.lan", "not a host name"},
		{"bridge..lan", "not a host name"},
		{"bridge!.lan", "not a host name"},
		{"user@bridge.lan", "not a bare host"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			err := CheckHost(tt.in)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("CheckHost(%q) = %v, want nil", tt.in, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("CheckHost(%q) = %v, want an error with %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestParsePublicURL(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"https://bridge.example.com", ""},
		{"https://bridge.example.com/", ""},
		{"http://bridge.lan:8377", ""},
		{"https://[2001:db8::2]:8443", ""},
		{"bridge.example.com", "absolute URL"},
		{"ftp://bridge.example.com", "absolute URL"},
		{"https://", "no host"},
		{"https://:443", "no host"},
		{"https://u:p@bridge.example.com", "user name"},
		{"https://bridge.example.com/?a=1", "query"},
		{"https://bridge.example.com/#x", "fragment"},
		{"https://bridge.example.com:port", "not a URL"},
		{"https://bri dge.example.com", "not a URL"},
		{"https://*.example.com", "wildcard"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ParsePublicURL(tt.in)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("ParsePublicURL(%q) = %v, want nil", tt.in, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("ParsePublicURL(%q) = %v, want an error with %q", tt.in, err, tt.want)
			}
		})
	}
}
