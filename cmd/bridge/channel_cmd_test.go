package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/internal/cmdline"
)

// TestChannelBadCommandLine: a bad flag of `bridge channel` exits 2 with
// the flag named, before it serves anything on standard output.
func TestChannelBadCommandLine(t *testing.T) {
	tests := []struct {
		args []string
		says string
	}{
		{[]string{"--lease", "1s"}, "--lease must be between 5s and 7d, got 1s"},
		{[]string{"--lease", "169h"}, "--lease must be between 5s and 7d, got 169h0m0s"},
		{[]string{"--timeout", "1s"}, "--timeout must be between"},
		{[]string{"--timeout", "soon"}, `invalid argument "soon" for "--timeout"`},
		{[]string{"--connect-timeout", "0s"}, "--connect-timeout must be above 0, got 0s"},
		{[]string{"--session", strings.Repeat("s", 201)}, "--session must be at most 200 characters, got 201"},
		{[]string{"extra"}, "extra"},
		{[]string{"--bogus"}, "--bogus"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"channel"}, tt.args...), strings.NewReader(""), &out, &errb)
			if code != cmdline.ExitBadInput || out.Len() != 0 || !strings.Contains(errb.String(), tt.says) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 saying %q", code, out.String(), errb.String(), tt.says)
			}
		})
	}
}
