package webhook

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// echo answers with the body it read, or the error's status and text.
func echo(limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := ReadBody(w, r, limit)
		if err != nil {
			http.Error(w, err.Error(), Status(err))
			return
		}
		_, _ = w.Write(body)
	})
}

func TestReadBody(t *testing.T) {
	srv := httptest.NewServer(echo(16))
	defer srv.Close()
	tests := []struct {
		name     string
		body     io.Reader
		length   int64 // -1: chunked
		want     int
		wantText string
	}{
		{"within the limit", strings.NewReader("0123456789abcdef"), 16, 200, "0123456789abcdef"},
		{"empty", strings.NewReader(""), 0, 200, ""},
		{"declared too large", strings.NewReader(strings.Repeat("x", 17)), 17, 413, "request body too large: 17 bytes declared, the limit is 16"},
		{"chunked and too large", strings.NewReader(strings.Repeat("x", 100)), -1, 413, "request body too large: the limit is 16 bytes"},
		{"chunked within the limit", strings.NewReader("abc"), -1, 200, "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			req.ContentLength = tt.length
			if tt.length < 0 {
				req.Body = io.NopCloser(req.Body) // hide the length: chunked
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.want || strings.TrimSpace(string(b)) != tt.wantText {
				t.Errorf("got %d %q, want %d %q", resp.StatusCode, b, tt.want, tt.wantText)
			}
		})
	}
}

// A body that stalls loses its connection within the read timeout: here
// the server's own 300 ms, which wins over ReadTimeout when shorter.
func TestAStalledBodyLosesItsConnection(t *testing.T) {
	srv := httptest.NewUnstartedServer(echo(64 << 10))
	srv.Config.ReadTimeout = 300 * time.Millisecond
	srv.Start()
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n%s", bytes.Repeat([]byte("x"), 10))
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	out, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the stalled connection was not closed by the server: %v", err)
	}
	if !strings.Contains(string(out), "400 Bad Request") {
		t.Errorf("answer to a stalled body = %q, want a 400", out)
	}
}
