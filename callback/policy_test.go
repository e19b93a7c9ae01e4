package callback

import (
	"errors"
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
		{"default: localhost", nil, "http://localhost:9000/hook", true, ""},
		{"default: 127.0.0.1", nil, "http://127.0.0.1:9000/hook", true, ""},
		{"default: ::1", nil, "http://[::1]:9000/hook", true, ""},
		{"default: remote host", nil, "https://hooks.example.com/x", false, "only loopback hosts"},
		{"default: private address", nil, "http://10.0.0.7/x", false, "only loopback hosts"},
		{"not http", nil, "ftp://localhost/x", false, "http or https"},
		{"credentials", nil, "http://user:pw@localhost/x", false, "user name or password"},
		{"host pattern", []string{"hooks.example.com"}, "https://hooks.example.com/any/path", true, ""},
		{"host pattern: other host", []string{"hooks.example.com"}, "https://hooks.example.com.evil.net/x", false, "not in the callbacks.allow list"},
		{"host pattern replaces loopback", []string{"hooks.example.com"}, "http://127.0.0.1/x", false, "not in the callbacks.allow list"},
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
	for _, e := range []string{"", "ftp://x/", "https://u:p@x/", "https://x/?q=1", "a*.example.com", "host/path", "*."} {
		t.Run(e, func(t *testing.T) {
			_, err := NewPolicy([]string{"ok.example.com", e})
			if err == nil || !strings.Contains(err.Error(), "callbacks.allow[1]") {
				t.Errorf("NewPolicy(%q) = %v, want an error naming callbacks.allow[1]", e, err)
			}
		})
	}
}
