package slack

import (
	"context"
	"fmt"

	slackapi "github.com/slack-go/slack"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Threader = (*Channel)(nil)

// maxMessageText is the length chat.postMessage keeps of a message's
// text; Slack cuts what goes beyond.
const maxMessageText = 40000

// PostInThread posts an agent's reply in the thread of the posted copy
// m, as plain text (mrkdwn escaped, links not unfurled). It is a direct
// call, not the outbox's: the agent waits for it and is told when Slack
// refuses it, after the client's bounded retries of a 429.
func (c *Channel) PostInThread(ctx context.Context, q *broker.Question, m broker.MessageRef, text string) error {
	ch, ts := locate(m)
	if ch == "" || ts == "" {
		return broker.Permanent(fmt.Errorf("slack: reply on %s: the copy %q names no message", q.ID, m.MessageID))
	}
	_, _, err := c.api.PostMessageContext(ctx, ch,
		slackapi.MsgOptionText(escapeLimit(text, maxMessageText), false),
		slackapi.MsgOptionTS(ts),
		slackapi.MsgOptionDisableLinkUnfurl(),
		slackapi.MsgOptionDisableMediaUnfurl(),
	)
	if err != nil {
		return classify(fmt.Errorf("slack: reply on %s in %s: %w", q.ID, m.Chat, err))
	}
	c.log.Info("reply posted in the thread", "question_id", q.ID, "chat", ch, "thread_ts", ts)
	return nil
}
