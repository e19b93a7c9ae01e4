package main

import (
	"strings"
	"testing"
)

// TestMCPRaceLocalWithoutQuestions: --race-local with questions turned
// off (by the flag or the environment) is refused with exit 2, naming
// both; --race-local alone starts and ends with its standard input.
func TestMCPRaceLocalWithoutQuestions(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
		args []string
	}{
		{"flag", "", []string{"mcp", "--race-local", "--no-user-question"}},
		{"environment", "1", []string{"mcp", "--race-local"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ASKBRIDGE_NO_USER_QUESTION", tc.env)
			r := runBridge(t, "127.0.0.1:1", tc.args...)
			if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "--race-local") || !strings.Contains(r.stderr, "--no-user-question") {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2 naming --race-local and --no-user-question", r.code, r.stdout, r.stderr)
			}
		})
	}
	t.Setenv("ASKBRIDGE_NO_USER_QUESTION", "")
	if r := runBridge(t, "127.0.0.1:1", "mcp", "--race-local"); r.code != 0 {
		t.Fatalf("bridge mcp --race-local with no input: exit %d, stderr %q", r.code, r.stderr)
	}
}
