package clientcmd

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// A wrong $ASKBRIDGE_SERVER gets a sentence that says what to set, and a
// server that is not a bridge one that says so, never the URL parser's
// words or the other server's page.
func TestCLIWrongServer(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<html><body><h1>Not Found</h1></body></html>"))
	}))
	defer page.Close()
	t.Setenv("ASKBRIDGE_KEY", "")
	t.Setenv("ASKBRIDGE_RESPONDER_KEY", "")
	tests := []struct {
		server string
		args   []string
		says   string
	}{
		{"127.0.0.1:8377", []string{"list"}, `ASKBRIDGE_SERVER is "127.0.0.1:8377", which has no scheme: set it to http://127.0.0.1:8377`},
		{"127.0.0.1:8377", []string{"ask", "--connect-timeout", "0", "Deploy?"}, "which has no scheme: set it to http://127.0.0.1:8377"},
		{"127.0.0.1:8377", []string{"wait", "k7m2qx"}, "which has no scheme"},
		{"127.0.0.1:8377", []string{"answer", "k7m2qx", "1"}, "which has no scheme"},
		{page.URL, []string{"list"}, "the server at " + page.URL + " is not an askbridge bridge: it answered HTTP 404 with an HTML page: is $ASKBRIDGE_SERVER the bridge's address?"},
		{page.URL, []string{"wait", "k7m2qx"}, "is not an askbridge bridge"},
		{page.URL, []string{"cancel", "k7m2qx"}, "is not an askbridge bridge"},
	}
	for _, tt := range tests {
		t.Run(tt.server+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			t.Setenv("ASKBRIDGE_SERVER", tt.server)
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &stdout, &stderr)
			if code != cmdline.ExitFailure || !strings.Contains(stderr.String(), tt.says) {
				t.Fatalf("exit %d, stderr %q; want 1 and %q", code, stderr.String(), tt.says)
			}
			for _, bad := range []string{"<", "first path segment", "unsupported protocol scheme", `Run "bridge list"`} {
				if strings.Contains(stderr.String(), bad) {
					t.Errorf("stderr holds %q: %s", bad, stderr.String())
				}
			}
		})
	}
}
