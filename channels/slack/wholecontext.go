package slack

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	slackapi "github.com/slack-go/slack"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// A question's context block holds at most 3000 characters: a longer
// context is cut by the card (fit.go) and ends with broker.ContextCutMark.
// When the copy shows less than the whole context, Post replies in the
// copy's thread with the whole of it, in a code block. The approval hook of a coding
// agent puts the whole command there when its preview is shortened, so
// the thread is where a person reads what they approve.

const (
	// maxThreadText bounds the text of one thread reply. Slack truncates
	// text past 40,000 characters, but its servers split a message past
	// about 4,000 into several, which tears a code block apart; a context
	// longer than that goes in several replies, each a whole code block.
	maxThreadText = 4000
	// fence opens and closes a code block.
	fence = "```"
)

// contextShown reports whether blocks show q's whole context.
func contextShown(q *broker.Question, blocks []slackapi.Block) bool {
	if q.Context == "" {
		return true
	}
	whole, id := escapeMrkdwn(q.Context), blockID(q.ID, "context")
	for _, b := range blocks {
		cb, ok := b.(*slackapi.ContextBlock)
		if !ok || cb.BlockID != id {
			continue
		}
		for _, el := range cb.ContextElements.Elements {
			if t, ok := el.(*slackapi.TextBlockObject); ok && t.Text == whole {
				return true
			}
		}
	}
	return false
}

// threadWholeContext posts q's whole context in the thread of its copy
// (conversation ch, message ts). The question is already posted: a
// failure here is logged and not returned, since an error from Post would
// make the outbox post the question a second time.
func (c *Channel) threadWholeContext(ctx context.Context, q *broker.Question, chat, ch, ts string) {
	if err := c.postWholeContext(ctx, q, ch, ts); err != nil {
		c.log.Warn("the whole context of a shortened question was not posted",
			"question_id", q.ID, "chat", chat, "ts", ts, "err", err)
		return
	}
	c.log.Debug("whole context posted", "question_id", q.ID, "chat", chat, "ts", ts)
}

// postWholeContext sends the replies of contextReplies in order, through
// the client that waits out a 429 within ctx, since nothing would send
// them again.
func (c *Channel) postWholeContext(ctx context.Context, q *broker.Question, ch, ts string) error {
	texts, fenced := contextReplies(i18n.For(c.localeOf(q)), q.ID, q.Context)
	for i, text := range texts {
		opts := []slackapi.MsgOption{
			slackapi.MsgOptionText(text, false),
			slackapi.MsgOptionTS(ts),
			slackapi.MsgOptionDisableLinkUnfurl(),
			slackapi.MsgOptionDisableMediaUnfurl(),
		}
		if !fenced {
			opts = append(opts, slackapi.MsgOptionDisableMarkdown())
		}
		if _, _, err := c.api.PostMessageContext(ctx, ch, opts...); err != nil {
			return fmt.Errorf("slack: post the whole context of question %s in %s (reply %d of %d): %w", q.ID, ch, i+1, len(texts), err)
		}
	}
	return nil
}

// contextReplies writes the whole context s of question id as the texts
// of thread replies: a line naming the question (printed by w), then the escaped context
// in a code block, at most maxThreadText characters each, a long context
// cut after a line break wherever the piece holds one. A context that
// holds ``` would end its code block early: its replies carry it as plain
// text instead (fenced false), to be posted with formatting off.
func contextReplies(w *i18n.Printer, id, s string) (texts []string, fenced bool) {
	fenced = !strings.Contains(s, fence)
	wrap := func(head, body string) string {
		if fenced {
			return head + "\n" + fence + "\n" + body + "\n" + fence
		}
		return head + "\n" + body
	}
	head := func(i, n int) string {
		if n == 1 {
			return escapeMrkdwn(w.T("dialog.slack.whole_context", id))
		}
		return escapeMrkdwn(w.T("dialog.slack.whole_context_n", id, i+1, n))
	}
	room := maxThreadText - utf8.RuneCountInString(wrap(head(98, 99), ""))
	parts := splitEscaped(s, room)
	for i, p := range parts {
		texts = append(texts, wrap(head(i, len(parts)), p))
	}
	return texts, fenced
}

// splitEscaped cuts s into pieces whose escaped text is at most room
// characters, after the last line break a piece holds, mid-line only when
// a line is longer than room, and never inside an escaped character. It
// returns the pieces escaped; joined and unescaped they are s.
func splitEscaped(s string, room int) []string {
	var out []string
	for s != "" {
		end, lineEnd, n := len(s), 0, 0
		for i, r := range s {
			w := utf8.RuneCountInString(escapeMrkdwn(string(r)))
			if n+w > room {
				end = i
				break
			}
			n += w
			if r == '\n' {
				lineEnd = i + 1
			}
		}
		if end < len(s) && lineEnd > 0 {
			end = lineEnd
		}
		out = append(out, escapeMrkdwn(s[:end]))
		s = s[end:]
	}
	return out
}
