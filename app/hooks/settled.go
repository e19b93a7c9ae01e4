package hooks

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/client"
)

// Prompts settled at the terminal. When a person answers Claude Code's
// own dialog before anyone answers in chat, Claude Code tells no hook, and
// the chat copies would stay open. Its later events tell: PostToolUse or
// PostToolUseFailure of the same call (it ran, so it was allowed), and
// Stop (the turn ended, so no prompt of the session is still waiting).
// On them the hook cancels the matching open questions with the reason
// "answered at the terminal", which edits every copy. Nothing matches, as
// for every call that needed no permission or was answered in chat: then
// nothing changes and nothing is printed.

// settledReason is the reason people read on a closed question.
const settledReason = broker.ReasonAnsweredAtTerminal

// hookSettled names the open questions a report settles: in session,
// those whose tool-call id is one of keys or starts with one and "-"
// (askForHook's key and nonce); with no keys, every open question of the
// session.
type hookSettled struct {
	session string
	keys    []string
}

// claudeSettled reads a PostToolUse, PostToolUseFailure or Stop event:
// the call's tool_use_id and its input's key, as the PermissionRequest
// hook keyed its question.
func claudeSettled(h agentHook, ev claudeEvent) *hookSettled {
	s := &hookSettled{session: hookSession(h, ev.SessionID)}
	if ev.HookEventName == "Stop" {
		return s
	}
	if ev.ToolUseID != "" {
		s.keys = append(s.keys, ev.ToolUseID)
	}
	s.keys = append(s.keys, "perm-"+inputDigest(ev.ToolName, ev.ToolInput))
	return s
}

// matches reports whether question key k is one s settles.
func (s *hookSettled) matches(k string) bool {
	if len(s.keys) == 0 {
		return true
	}
	for _, key := range s.keys {
		if k == key || strings.HasPrefix(k, key+"-") {
			return true
		}
	}
	return false
}

// closeSettled cancels the open questions s settles, within d: the hook
// runs in the background of every tool call and must not linger on a
// bridge that is down.
func closeSettled(ctx context.Context, c *client.Client, s *hookSettled, d time.Duration, logf func(format string, args ...any)) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	open, err := c.List(ctx, s.session, client.StatusPending)
	if err != nil {
		logf("cannot list the open questions of %s: %v", s.session, err)
		return
	}
	for _, q := range open {
		if !s.matches(q.ToolCallID) {
			continue
		}
		_, err := c.Cancel(ctx, q.ID, settledReason)
		var ae *client.APIError
		switch {
		case errors.As(err, &ae) && ae.StatusCode < 500:
			// Answered in chat meanwhile: that answer stands.
		case err != nil:
			logf("cannot close question %s: %v", q.ID, err)
		default:
			logf("closed question %s: %s", q.ID, settledReason)
		}
	}
}
