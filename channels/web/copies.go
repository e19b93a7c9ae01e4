package web

import (
	"context"
	"strings"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// CopyReader lists what became of a question's copies on every target:
// the same view GET /v1/questions/{id} serves. It takes the question as
// the page read it, so that a card costs no second read of it, and none
// at all when every copy is in-process. *broker.Broker satisfies it.
type CopyReader interface {
	CopiesOf(ctx context.Context, q *broker.Question) ([]broker.Copy, error)
}

// copyView is one copy of a question elsewhere, as the page shows it:
// "Slack C0OPS: posted", "Telegram -1001234567890: retrying (unreachable,
// 3 attempts)".
type copyView struct {
	Target string `json:"target"`
	State  string `json:"state"`
	Text   string `json:"text"`
}

// platformNames are the names people know the channels by.
var platformNames = map[string]string{"telegram": "Telegram", "slack": "Slack", "discord": "Discord", "cli": "Text channel"}

// copiesOf renders the copies of q on targets other than the
// inbox itself. A failure to read them leaves them out, logged: the page
// still shows the question.
func (c *Channel) copiesOf(ctx context.Context, q *broker.Question, locale string) []copyView {
	if c.copies == nil {
		return nil
	}
	cs, err := c.copies.CopiesOf(ctx, q)
	if err != nil {
		c.log.Warn("read copies", "question_id", q.ID, "err", err)
		return nil
	}
	var out []copyView
	for _, cp := range cs {
		if cp.Target.Channel == Name {
			continue
		}
		out = append(out, renderCopy(cp, i18n.For(locale)))
	}
	return out
}

// renderCopy says where a copy is and how it stands, in w's words; the
// platform's error class and message stay as the platform gave them.
func renderCopy(cp broker.Copy, w *i18n.Printer) copyView {
	where := platformNames[cp.Target.Channel]
	if where == "" {
		where = cp.Target.Channel
	}
	if cp.Target.Chat != "" {
		where += " " + cp.Target.Chat
	}
	var notes []string
	if cp.ErrorClass != "" {
		notes = append(notes, cp.ErrorClass)
	} else if cp.LastError != "" && cp.State != broker.CopyPosted {
		notes = append(notes, cp.LastError)
	}
	if cp.State == broker.CopyRetrying && cp.Attempts > 1 {
		notes = append(notes, w.T("inbox.copy.attempts", cp.Attempts))
	}
	state := cp.State
	switch cp.State {
	case broker.CopyQueued, broker.CopyPosted, broker.CopyRetrying, broker.CopyFailed:
		state = w.T("inbox.copy." + cp.State)
	}
	text := where + ": " + state
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, ", ") + ")"
	}
	return copyView{Target: cp.Target.String(), State: cp.State, Text: text}
}
