package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/askbridge/askbridge/client"
	"github.com/askbridge/askbridge/internal/cmdline"
)

// A question that ends at once (a route without targets) is the request's
// own answer: the hook prints nothing, says why, and stores exactly one
// question, however often the same command comes.
func TestProcessHookRouteWithoutTargets(t *testing.T) {
	addr, dir := freeAddr(t), t.TempDir()
	cfg := writeConfig(t, dir, "routes:\n  default:\n    targets: [cli]\n  quiet:\n    targets: []\n")
	startServe(t, addr, nil, "--config", cfg, "--data-dir", dir)
	ev := hookFixture(t, "claude/bash.json", "quiet-route")
	for i := range 2 {
		out, errOut, code := hookResult(t, startHook(t, addr, ev, "claude", "--route", "quiet"))
		if code != 0 || out != "" || !strings.Contains(errOut, "ended unsupported; the local dialog decides") || strings.Contains(errOut, "earlier") {
			t.Fatalf("exit %d, printed %q, stderr %q", code, out, errOut)
		}
		if qs := questionsOf(t, addr, "claude:quiet-route", ""); len(qs) != i+1 || qs[0].Status != client.StatusUnsupported {
			t.Fatalf("%d questions stored after %d requests, want one unsupported question each: %+v", len(qs), i+1, qs)
		}
	}
}

// A prompt answered at Claude Code's terminal first: the PostToolUse
// report of the same call closes its question in chat with the reason
// "answered at the terminal"; a report of another call changes nothing
// and prints nothing.
func TestProcessHookClosesPromptAnsweredAtTerminal(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	ev := hookFixture(t, "claude/bash.json", "terminal")
	waiting := startHook(t, addr, ev, "claude", "--timeout", "2m")
	id := waitingFor(t, waiting)

	report := func(event string) []byte {
		return []byte(strings.Replace(string(ev), `"hook_event_name":"PermissionRequest"`, event, 1))
	}
	other := report(`"hook_event_name":"PostToolUse"`)
	other = []byte(strings.Replace(string(other), "rm -rf build", "rm -rf dist", 1))
	out, errOut, code := hookResult(t, startHook(t, addr, other, "claude"))
	if code != 0 || out != "" || errOut != "" {
		t.Fatalf("unrelated report: exit %d, printed %q, stderr %q", code, out, errOut)
	}
	if q := questionByID(t, addr, "claude:terminal", id); q.Status != client.StatusPending {
		t.Fatalf("an unrelated report ended the question: %s", q.Status)
	}

	out, errOut, code = hookResult(t, startHook(t, addr, report(`"hook_event_name":"PostToolUse","tool_response":{"stdout":"done"}`), "claude"))
	if code != 0 || out != "" || !strings.Contains(errOut, "closed question "+id+": answered at the terminal") {
		t.Fatalf("report: exit %d, printed %q, stderr %q", code, out, errOut)
	}
	q := questionByID(t, addr, "claude:terminal", id)
	if q.Status != client.StatusCancelled || q.Reason != "answered at the terminal" {
		t.Fatalf("question %s is %s (%q)", id, q.Status, q.Reason)
	}
	if out, _, code := hookResult(t, waiting); code != 0 || out != "" {
		t.Fatalf("the waiting hook: exit %d, printed %q", code, out)
	}
}

// `go run ./cmd/bridge hook install claude` would write the path of go
// run's temporary binary: install refuses it and says what to do, and
// writes the command --command names.
func TestProcessHookInstallRefusesGoRunBinary(t *testing.T) {
	home := t.TempDir()
	tmp := filepath.Join(t.TempDir(), "go-build3141592", "b001", "exe")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "bridge")
	copyFile(t, bridgeBinary(t), bin)
	settings := filepath.Join(home, ".claude", "settings.json")
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, append([]string{"hook", "install", "claude"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := run()
	if code != cmdline.ExitBadInput || !strings.Contains(out, bin+" is a temporary binary of go run or go test") ||
		!strings.Contains(out, "go install ./cmd/bridge") || !strings.Contains(out, "--command") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(settings); err == nil {
		t.Fatal("the refused install wrote the settings")
	}
	out, code = run("--command", "bridge hook claude")
	if code != 0 || !strings.Contains(out, settings+": added PermissionRequest hook") || !strings.Contains(readFile(t, settings), `"command": "bridge hook claude"`) {
		t.Fatalf("--command: exit %d:\n%s", code, out)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
