package main

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/client"
)

// Whenever no person decided, the hook prints nothing and exits 0, so the
// agent's own dialog appears: a timeout, a bridge that cannot be reached,
// and events the hook has no question for.
func TestProcessHookNoDecisionPrintsNothing(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	down := freeAddr(t) // nothing listens here
	tests := []struct {
		name, addr, agent, fixture string
		edit                       func(ev []byte) []byte
		args                       []string
		asks                       bool
		stderr                     string
	}{
		{name: "question times out", addr: addr, agent: "claude", fixture: "claude/bash.json", args: []string{"--timeout", "10s"}, asks: true,
			stderr: "ended timed_out; the local dialog decides"},
		{name: "codex question times out", addr: addr, agent: "codex", fixture: "codex/bash.json", args: []string{"--timeout", "10s"}, asks: true,
			stderr: "ended timed_out; the local dialog decides"},
		{name: "bridge down", addr: down, agent: "claude", fixture: "claude/bash.json", args: []string{"--connect-timeout", "1s"},
			stderr: "did not answer within 1s"},
		{name: "codex bridge down", addr: down, agent: "codex", fixture: "codex/apply_patch.json", args: []string{"--connect-timeout", "1s"},
			stderr: "did not answer within 1s"},
		{name: "permission to ask a question", addr: addr, agent: "claude", fixture: "claude/ask.json",
			edit: func(ev []byte) []byte {
				return []byte(strings.Replace(string(ev), `"hook_event_name":"PreToolUse"`, `"hook_event_name":"PermissionRequest"`, 1))
			}},
		{name: "another event", addr: addr, agent: "claude", fixture: "claude/bash.json",
			edit: func(ev []byte) []byte {
				return []byte(strings.Replace(string(ev), `"hook_event_name":"PermissionRequest"`, `"hook_event_name":"PostToolUse"`, 1))
			}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sid := "quiet-" + string(rune('a'+i))
			ev := hookFixture(t, tt.fixture, sid)
			if tt.edit != nil {
				ev = tt.edit(ev)
			}
			hook := startHook(t, tt.addr, ev, append([]string{tt.agent}, tt.args...)...)
			if tt.asks {
				waitingFor(t, hook)
			}
			out, errOut, code := hookResult(t, hook)
			if code != 0 || out != "" || !strings.Contains(errOut, tt.stderr) {
				t.Fatalf("exit %d, stdout %q, stderr %q (want it to contain %q)", code, out, errOut, tt.stderr)
			}
			if !tt.asks && tt.addr == addr {
				if qs := questionsOf(t, addr, tt.agent+":"+sid, ""); len(qs) != 0 {
					t.Fatalf("asked %d questions for an event it does not decide", len(qs))
				}
			}
		})
	}
}

// A hook run again with the same event (the agent re-ran it, or it was
// killed) re-attaches to the question already asked; once that question
// has ended, the same input asks anew: an "Allow once" never allows the
// next identical call.
func TestProcessHookReattaches(t *testing.T) {
	addr := freeAddr(t)
	startServe(t, addr, nil, "--data-dir", t.TempDir())
	ev := hookFixture(t, "claude/bash.json", "again")
	first := startHook(t, addr, ev, "claude", "--timeout", "2m")
	id := waitingFor(t, first)
	_ = first.cmd.Process.Kill()
	first.wait(t, 10*time.Second)

	second := startHook(t, addr, ev, "claude", "--timeout", "2m")
	if got := waitingFor(t, second); got != id {
		t.Fatalf("the re-run hook waits for question %s, want the first run's %s", got, id)
	}
	if qs := questionsOf(t, addr, "claude:again", ""); len(qs) != 1 {
		t.Fatalf("%d questions after the re-run, want 1", len(qs))
	}
	if r := runBridge(t, addr, "answer", id, "Allow once"); r.code != 0 {
		t.Fatalf("answer: %d %s", r.code, r.stderr)
	}
	out, errOut, code := hookResult(t, second)
	if code != 0 || !sameJSON(t, out, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`) {
		t.Fatalf("re-attached hook: exit %d, %q, %q", code, out, errOut)
	}

	third := startHook(t, addr, ev, "claude", "--timeout", "2m")
	next := waitingFor(t, third)
	if next == id {
		t.Fatalf("the same input after an answered question re-used question %s", id)
	}
	if q := questionByID(t, addr, "claude:again", next); q.Status != client.StatusPending {
		t.Fatalf("new question %s is %s", next, q.Status)
	}
	if r := runBridge(t, addr, "answer", next, "Deny and stop"); r.code != 0 {
		t.Fatalf("answer: %d %s", r.code, r.stderr)
	}
	out, _, code = hookResult(t, third)
	if code != 0 || !sameJSON(t, out, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"Denied in chat by local.","interrupt":true}}}`) {
		t.Fatalf("third run: exit %d, %q", code, out)
	}
}
