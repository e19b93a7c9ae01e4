package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
	"github.com/askbridge/askbridge/mcp"
)

// TestNobodyAskedOnPurpose: an agent with questions: off and a route
// without targets resolve asks at once as unsupported, and `bridge ask`
// (exit 6) and ask_user say why in the same words.
func TestNobodyAskedOnPurpose(t *testing.T) {
	t.Parallel()
	addr, dir := freeAddr(t), t.TempDir()
	cfg := filepath.Join(dir, "askbridge.yaml")
	err := os.WriteFile(cfg, []byte(`agents:
  - name: ci
    key_env: OFFTEST_KEY_CI
    questions: off
  - name: builder
    key_env: OFFTEST_KEY_BUILDER
routes:
  default:
    targets: [cli]
  quiet:
    targets: []
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"OFFTEST_KEY_CI=ci-key-secret-value", "OFFTEST_KEY_BUILDER=builder-key-secret"}
	startServe(t, addr, env, "--config", cfg, "--data-dir", dir)

	for _, tc := range []struct {
		name, key string
		args      []string
		reason    string
	}{
		{"questions off", "ci-key-secret-value", nil, "questions are turned off for this agent"},
		{"route without targets", "builder-key-secret", []string{"--route", "quiet"}, `route "quiet" has no targets: nobody is asked`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bridgeBinary(t), append(append([]string{"ask"}, tc.args...), "--option", "Yes", "--option", "No", "Ship it?")...)
			cmd.Env = append(os.Environ(), "ASKBRIDGE_SERVER=http://"+addr, "ASKBRIDGE_KEY="+tc.key)
			out, _ := cmd.Output()
			if code := cmd.ProcessState.ExitCode(); code != cmdline.ExitUnsupported {
				t.Fatalf("bridge ask exit %d, want %d\n%s", code, cmdline.ExitUnsupported, out)
			}
			if res := decodeResult(t, string(out)); res.Status != "unsupported" || res.Reason != tc.reason {
				t.Fatalf("bridge ask: %s %q, want unsupported %q", res.Status, res.Reason, tc.reason)
			}

			conn, _ := startMCPArgs(t, "http://"+addr, nil, "ASKBRIDGE_KEY="+tc.key)
			a := askArgs(prompt("Ship it?", "Yes", "No"))
			if len(tc.args) > 0 {
				a["route"] = "quiet"
			}
			res := conn.call(t, ctx, "ask_user", a, nil)
			want := "The question was not asked: " + tc.reason + ". Nobody will answer: state the assumption you make and proceed, or put the question in your final reply."
			if res.IsError || text(res) != want {
				t.Fatalf("ask_user: %q, want %q", text(res), want)
			}
			if o := outcome(t, res); o.Status != client.StatusUnsupported || o.Reason != tc.reason {
				t.Fatalf("outcome %+v", o)
			}
		})
	}
}

// TestMCPOffSwitchAndUnreachable: with --no-user-question (or its
// environment variable) ask_user stays listed and answers at once without
// a bridge; without it, a bridge that cannot be reached is a tool result
// naming its address, not a protocol error.
func TestMCPOffSwitchAndUnreachable(t *testing.T) {
	t.Parallel()
	closed := "http://" + freeAddr(t) // nothing listens there
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string
		err  bool
	}{
		{"flag", []string{"--no-user-question"}, nil, mcp.TextQuestionsOff, false},
		{"environment", nil, []string{"ASKBRIDGE_NO_USER_QUESTION=1"}, mcp.TextQuestionsOff, false},
		{"unreachable", nil, []string{"ASKBRIDGE_NO_USER_QUESTION="}, "the askbridge server at " + closed + " cannot be reached (nothing is listening there", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			conn, _ := startMCPArgs(t, closed, tc.args, tc.env...)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			tools, err := conn.cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 || tools.Tools[0].Name != "ask_user" {
				t.Fatalf("tools: %v %v", tools, err)
			}
			start := time.Now()
			ch := conn.callAsync(t, ctx, "ask_user", askArgs(prompt("Deploy now?", "Yes", "No")), nil)
			res := receive(t, ch, 15*time.Second)
			if res.IsError != tc.err || !strings.HasPrefix(text(res), tc.want) {
				t.Fatalf("ask_user after %s: error %v %q, want %q", time.Since(start).Round(time.Millisecond), res.IsError, text(res), tc.want)
			}
			t.Logf("ask_user returned after %s", time.Since(start).Round(time.Millisecond))
		})
	}
}
