package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIErrorsAreForPeople: a bridge that is not running and a request
// file that does not fit get sentences, not network or decoder errors.
func TestCLIErrorsAreForPeople(t *testing.T) {
	addr := freeAddr(t) // nothing listens there
	bad := filepath.Join(t.TempDir(), "ask.json")
	if err := os.WriteFile(bad, []byte(`{"questions":"hi"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bridge not running", []string{"list"}, "bridge list: cannot reach the bridge at http://" + addr + ": nothing is listening there (is bridge serve running, and is ASKBRIDGE_SERVER right?)\n"},
		{"request file does not fit", []string{"ask", "--request", bad}, "bridge ask: questions: must be a list of questions, got a string\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runBridge(t, addr, tt.args...)
			if r.code == 0 || r.stderr != tt.want {
				t.Fatalf("exit %d, stderr %q; want %q", r.code, r.stderr, tt.want)
			}
			for _, raw := range []string{"dial tcp", "json:", "askbridge:", "[]"} {
				if strings.Contains(r.stderr, raw) {
					t.Fatalf("stderr shows %q: %s", raw, r.stderr)
				}
			}
		})
	}
}
