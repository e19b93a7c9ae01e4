package telegram

import (
	"context"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Threader = (*Channel)(nil)

// PostInThread sends an agent's reply as a reply to the posted copy m,
// as plain text (escaped, cut visibly at Telegram's limit, no link
// preview). It is a direct call, not the outbox's: a 429 is waited out
// a bounded number of times, and the agent is told when Telegram refuses
// it. People answer the agent by replying to the question's message.
func (c *Channel) PostInThread(ctx context.Context, q *broker.Question, m broker.MessageRef, text string) error {
	chat, id, err := parseMessageID(m)
	if err != nil {
		return err
	}
	msg := tgbotapi.NewMessage(chat, plainText(text))
	msg.ParseMode = tgbotapi.ModeHTML
	msg.ReplyToMessageID = id
	msg.AllowSendingWithoutReply = true
	msg.DisableWebPagePreview = true
	sent, err := c.send(ctx, "reply on question "+q.ID, msg)
	if err != nil {
		return err
	}
	c.log.Info("reply posted", "question_id", q.ID, "chat", m.Chat, "message_id", sent.MessageID)
	return nil
}
