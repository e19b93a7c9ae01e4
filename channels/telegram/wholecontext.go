package telegram

import (
	"context"
	"unicode"
	"unicode/utf8"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// A question whose message shows its context shortened (render cuts the
// context first to stay within Telegram's 4096 characters) gets the whole
// context right after it, as a reply to the question message: in a <pre>
// block when it fits one message, else as the file context.txt. The hook
// of a coding agent puts the whole command in the context when its preview
// is shortened, so this reply is where a person reads what they approve.

// contextFile is the name of the file that carries a whole context.
const contextFile = "context.txt"

// replyWholeContext replies to the question message msgID in chat with
// q's whole context. The question is already posted: a failure here is
// logged and not returned, since an error from Post would make the outbox
// post the question a second time.
func (c *Channel) replyWholeContext(ctx context.Context, q *broker.Question, chat string, chatID int64, msgID int) {
	if err := c.postWholeContext(ctx, q, chatID, msgID); err != nil {
		c.log.Warn("the whole context of a shortened question was not posted",
			"question_id", q.ID, "chat", chat, "message_id", msgID, "err", err)
		return
	}
	c.log.Info("whole context posted", "question_id", q.ID, "chat", chat, "message_id", msgID)
}

// postWholeContext sends q's context as a reply to message msgID: a
// message with the text in <pre> when it fits, else a document. 429s are
// waited out within ctx (call), since nothing would send it again.
func (c *Channel) postWholeContext(ctx context.Context, q *broker.Question, chatID int64, msgID int) error {
	what := "post the whole context of question " + q.ID
	w := i18n.For(c.localeOf(q))
	text := esc(w.T("dialog.telegram.whole_context", q.ID)) + "\n<pre>" + esc(q.Context) + "</pre>"
	if visibleLen(text) <= maxText && !endsInSpace(q.Context) {
		msg := tgbotapi.NewMessage(chatID, text)
		msg.ParseMode = tgbotapi.ModeHTML
		msg.DisableWebPagePreview = true
		msg.ReplyToMessageID = msgID
		_, err := c.send(ctx, what, msg)
		return err
	}
	doc := tgbotapi.NewDocument(chatID, tgbotapi.FileBytes{Name: contextFile, Bytes: []byte(q.Context)})
	doc.Caption = w.T("dialog.telegram.whole_context_file", q.ID, utf8.RuneCountInString(q.Context))
	doc.ReplyToMessageID = msgID
	_, err := c.send(ctx, what, doc)
	return err
}

// endsInSpace reports whether s ends with white space, which Telegram
// strips from the end of a message's text: such a context goes as a file,
// which keeps every byte.
func endsInSpace(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(r)
}
