package hooks

import (
	"strings"
	"testing"
)

const claudeBashEvent = `{"session_id":"S","cwd":"/home/ana/shop","permission_mode":"default","hook_event_name":"PermissionRequest",` +
	`"tool_name":"Bash","tool_input":{"command":"make test","description":"Run the tests"}}`

const allowJSON = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}` + "\n"

// The same command allowed once, again and again in one session: each
// request reaches the chat and is decided by its own answer, with no
// bound on the repeats.
func TestHookAsksEveryRepeat(t *testing.T) {
	b := startTestBridge(t, allowOnce)
	const repeats = 105
	for i := range repeats {
		out, errOut, code := runHook(t, claudeAgent, claudeBashEvent)
		if code != 0 || out != allowJSON {
			t.Fatalf("request %d: exit %d, printed %q, stderr %q", i+1, code, out, errOut)
		}
		if n := b.chat.postCount(); n != i+1 {
			t.Fatalf("request %d: %d questions reached the chat, want %d", i+1, n, i+1)
		}
	}
	if qs := b.sessionQuestions(t, "claude:S"); len(qs) != repeats {
		t.Fatalf("%d questions stored, want %d", len(qs), repeats)
	}
}

// A question that ends at once (a route without targets, an agent with
// questions off) is this request's answer: nobody decided, so the hook
// prints nothing, and it asked exactly once.
func TestHookQuestionEndedAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name, event string
	}{
		{"digest key", claudeBashEvent},
		{"tool_use_id key", strings.Replace(claudeBashEvent, `"tool_name"`, `"tool_use_id":"toolu_01","tool_name"`, 1)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := startTestBridge(t, allowOnce)
			for range 2 {
				out, errOut, code := runHook(t, claudeAgent, tt.event, "--route", "quiet")
				if code != 0 || out != "" || !strings.Contains(errOut, "ended unsupported; the local dialog decides") || strings.Contains(errOut, "earlier") {
					t.Fatalf("exit %d, printed %q, stderr %q", code, out, errOut)
				}
			}
			want := 2
			if strings.Contains(tt.event, "toolu_01") {
				want = 1 // the same call, asked again: its question is its answer
			}
			if qs := b.sessionQuestions(t, "claude:S"); len(qs) != want {
				t.Fatalf("%d questions stored after two requests, want %d", len(qs), want)
			}
		})
	}
}
