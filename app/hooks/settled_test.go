package hooks

import (
	"strings"
	"testing"
	"time"

	"github.com/askbridge/askbridge/broker"
)

// backgroundHook runs the hook on event until it ends; the channel gives
// its output.
func backgroundHook(t *testing.T, agent agentHook, event string) <-chan [3]string {
	t.Helper()
	done := make(chan [3]string, 1)
	go func() {
		out, errOut, code := runHook(t, agent, event)
		done <- [3]string{out, errOut, string(rune('0' + code))}
	}()
	return done
}

// A prompt settled at Claude Code's terminal closes its question in chat:
// PostToolUse and PostToolUseFailure of the same call (matched by
// tool_use_id, or by the input when there is none) and Stop (every open
// question of the session) cancel it with the reason "answered at the
// terminal", which edits the chat copy. A report that matches nothing
// changes nothing and prints nothing.
func TestHookClosesSettledPrompts(t *testing.T) {
	b := startTestBridge(t, nobody)
	const session = "claude:S"
	report := func(event, tool, input, extra string) string {
		return `{"session_id":"S","cwd":"/home/ana/shop","hook_event_name":"` + event + `","tool_name":"` + tool + `","tool_input":` + input + extra + `}`
	}
	const makeTest = `{"command":"make test","description":"Run the tests"}`
	tests := []struct {
		name      string
		request   string // the PermissionRequest event
		unrelated []string
		settles   string
	}{
		{"PostToolUse by input", claudeBashEvent,
			[]string{report("PostToolUse", "Bash", `{"command":"make lint"}`, ""), report("PostToolUse", "Read", makeTest, "")},
			report("PostToolUse", "Bash", `{"description":"Run the tests","command":"make test"}`, `,"tool_response":{"stdout":"ok"}`)},
		{"PostToolUseFailure by tool_use_id", strings.Replace(claudeBashEvent, `"tool_name"`, `"tool_use_id":"toolu_07","tool_name"`, 1),
			[]string{report("PostToolUseFailure", "Bash", `{"command":"make lint"}`, `,"tool_use_id":"toolu_08"`)},
			report("PostToolUseFailure", "Bash", makeTest, `,"tool_use_id":"toolu_07","error":"exit 2"`)},
		{"Stop", permissionEvent("WebFetch", `{"url":"https://example.com"}`, ""),
			nil, `{"session_id":"S","hook_event_name":"Stop","stop_hook_active":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			waiting := backgroundHook(t, claudeAgent, tt.request)
			q := b.pendingIn(t, session, 1)[0]
			// Settled once the person could see it: a question closed
			// before its copy was posted is never posted, so has no
			// copy to edit.
			for posted := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				if refs, err := b.Store.Messages(t.Context(), q.ID); err == nil && len(refs) > 0 {
					break
				}
				if time.Now().After(posted) {
					t.Fatal("the question was not posted to the chat")
				}
			}
			for _, ev := range tt.unrelated {
				out, errOut, code := runHook(t, claudeAgent, ev)
				if code != 0 || out != "" || errOut != "" {
					t.Fatalf("unrelated report: exit %d, printed %q, stderr %q", code, out, errOut)
				}
				b.pendingIn(t, session, 1)
			}
			out, errOut, code := runHook(t, claudeAgent, tt.settles)
			if code != 0 || out != "" || !strings.Contains(errOut, "closed question "+q.ID+": answered at the terminal") {
				t.Fatalf("report: exit %d, printed %q, stderr %q", code, out, errOut)
			}
			b.pendingIn(t, session, 0)
			got, err := b.Get(t.Context(), q.Agent, q.ID)
			if err != nil || got.Status != broker.StatusCancelled || got.Reason != "answered at the terminal" {
				t.Fatalf("question %s: %+v, %v", q.ID, got, err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for !b.chat.updatedTo(q.ID, broker.StatusCancelled, "answered at the terminal") {
				if time.Now().After(deadline) {
					tasks, err := b.Store.PlatformWork(t.Context(), q.ID)
					refs, _ := b.Store.Messages(t.Context(), q.ID)
					t.Fatalf("the chat copy was not edited: outbox %+v (%v), copies %+v", tasks, err, refs)
				}
				time.Sleep(10 * time.Millisecond)
			}
			select {
			case r := <-waiting:
				if r[0] != "" {
					t.Fatalf("the waiting hook printed %q", r[0])
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the waiting hook did not end")
			}
		})
	}
}
