package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// A bad command line of an agent's hook exits 1, never 2: both agents read
// exit 2 as "deny", and a typo in the settings must not deny every tool.
func TestAgentHookBadCommandLineExitsOne(t *testing.T) {
	for _, args := range [][]string{
		{"hook", "claude", "--bogus"},
		{"hook", "codex", "extra"},
		{"hook", "claude", "--timeout", "soon"},
		{"hook", "codex", "--timeout", "1s"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(args, strings.NewReader("{}"), &out, &errb)
			if code != cmdline.ExitFailure || out.Len() != 0 || errb.Len() == 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1, nothing on stdout, a reason on stderr", code, out.String(), errb.String())
			}
		})
	}
	var out bytes.Buffer
	if code := run([]string{"hook", "claude", "--help"}, strings.NewReader(""), &out, &out); code != cmdline.ExitOK || !strings.Contains(out.String(), "--connect-timeout") || !strings.Contains(out.String(), "Exit codes:") {
		t.Fatalf("help: exit %d\n%s", code, out.String())
	}
}
