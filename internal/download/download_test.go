package download

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/private":
			if r.Header.Get("Authorization") != "Bearer xoxb-1" {
				http.Error(w, "no", http.StatusForbidden)
				return
			}
			_, _ = w.Write([]byte("secret file"))
		case "/big":
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	auth := http.Header{"Authorization": {"Bearer xoxb-1"}}
	tests := []struct {
		name, path string
		header     http.Header
		max        int64
		want       string
		err        string
	}{
		{"with the header", "/private", auth, 100, "secret file", ""},
		{"without it", "/private", nil, 100, "", "answered 403 Forbidden"},
		{"cut at max+1", "/big", nil, 10, strings.Repeat("x", 11), ""},
		{"missing", "/bot123:SECRET/nothing", nil, 10, "", "answered 404 Not Found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Get(context.Background(), srv.Client(), srv.URL+tc.path, tc.header, tc.max)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "SECRET") {
					t.Fatalf("err = %v, want one saying %q without the URL", err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("Get = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	t.Run("unreachable server: no URL in the error", func(t *testing.T) {
		_, err := Get(context.Background(), http.DefaultClient, "http://127.0.0.1:1/bot123:SECRET/x", nil, 10)
		if err == nil || strings.Contains(err.Error(), "SECRET") {
			t.Fatalf("err = %v, want an error without the URL", err)
		}
	})
}
