package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// An address without its scheme is said in words, with the address it
// probably meant, at once and without retrying.
func TestAddressWithoutScheme(t *testing.T) {
	tests := []struct{ server, hint string }{
		{"127.0.0.1:8377", "http://127.0.0.1:8377"},
		{"localhost:8377", "http://localhost:8377"},
		{"bridge.example.com", "http://bridge.example.com"},
		{"ftp://bridge.example.com", ""},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			c := New(tt.server, "")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_, err := c.AskRaw(ctx, Question{Question: "Deploy?"})
			var ae *AddressError
			if !errors.As(err, &ae) || ae.Hint != tt.hint {
				t.Fatalf("AskRaw: %v; want an *AddressError with hint %q", err, tt.hint)
			}
			if strings.Contains(err.Error(), "first path segment") || strings.Contains(err.Error(), "unsupported protocol scheme") {
				t.Fatalf("the error is the URL parser's: %v", err)
			}
			if Transient(err) {
				t.Fatal("a wrong address is retried")
			}
		})
	}
}

// A server that is not a bridge (a web page, a proxy's error page) is
// said in words: its page is not quoted, and only a proxy's 502, 503 or
// 504 is worth retrying.
func TestServerThatIsNotABridge(t *testing.T) {
	page := "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>"
	tests := []struct {
		name      string
		status    int
		says      string
		transient bool
	}{
		{"not found", http.StatusNotFound, "is not an askbridge bridge: it answered HTTP 404 with an HTML page", false},
		{"a page for every path", http.StatusOK, "is not an askbridge bridge: it answered HTTP 200 with an HTML page", false},
		{"method not allowed", http.StatusNotImplemented, "is not an askbridge bridge: it answered HTTP 501 with an HTML page", false},
		{"proxy without its bridge", http.StatusBadGateway, "answered HTTP 502 with an HTML page rather than the bridge's answer", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(page))
			}))
			defer hs.Close()
			_, err := New(hs.URL, "").List(context.Background(), "", "")
			var ae *APIError
			if !errors.As(err, &ae) || !ae.NotBridge || !strings.Contains(ae.Message, tt.says) || ae.StatusCode != tt.status {
				t.Fatalf("List: %#v; want a NotBridge error saying %q", err, tt.says)
			}
			if strings.Contains(err.Error(), "<") {
				t.Fatalf("the error quotes the page: %v", err)
			}
			if Transient(err) != tt.transient {
				t.Fatalf("Transient = %v, want %v", Transient(err), tt.transient)
			}
		})
	}
}
