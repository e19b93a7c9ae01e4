package discord

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/i18n"
)

// A message's content holds 2000 characters, and the card is shortened
// context first (broker.Card.Shorten), ending the context with
// broker.ContextCutMark. When the copy shows less than the whole context, Post replies to it
// with the whole context attached as context.txt. The approval hook of a
// coding agent puts the whole command there when its preview is
// shortened, so the attachment is where a person reads what they approve.

// contextFile is the name of the file that carries a whole context.
const contextFile = "context.txt"

// contextNonce is the nonce of the reply with the whole context of the
// copy of question id in chat: a post sent again after a lost answer
// gets the reply already made instead of a second one.
func contextNonce(id, chat string) string { return "c" + copyNonce(id, chat)[1:] }

// replyWholeContext replies to the copy messageID of q in channel to with
// the whole context. The question is already posted: a failure here is
// logged and not returned, since an error from Post would make the
// outbox post the question again.
func (c *Channel) replyWholeContext(ctx context.Context, q *broker.Question, chat, to, messageID string) {
	if err := c.postWholeContext(ctx, q, chat, to, messageID); err != nil {
		c.log.Warn("the whole context of a shortened question was not posted",
			"question_id", q.ID, "chat", chat, "message_id", messageID, "err", err)
		return
	}
	c.log.Debug("whole context posted", "question_id", q.ID, "chat", chat, "message_id", messageID)
}

// postWholeContext sends the reply: a line naming the question, the
// reference to its copy and context.txt, as multipart/form-data
// (payload_json and files[0]). A 429 is waited out within ctx (call).
func (c *Channel) postWholeContext(ctx context.Context, q *broker.Question, chat, to, messageID string) error {
	no := false
	err := c.call(ctx, func(opts ...discordgo.RequestOption) error {
		m := &discordgo.MessageSend{
			Content:         i18n.For(c.localeOf(q)).T("discord.whole_context", escape(q.ID), utf8.RuneCountInString(q.Context)),
			AllowedMentions: noMentions(),
			Reference:       &discordgo.MessageReference{MessageID: messageID, ChannelID: to, FailIfNotExists: &no},
		}
		files := []*discordgo.File{{Name: contextFile, ContentType: "text/plain; charset=utf-8", Reader: strings.NewReader(q.Context)}}
		_, err := c.sendFilesOnce(to, contextNonce(q.ID, chat), m, files, opts...)
		return err
	})
	if err != nil {
		return classify(fmt.Errorf("discord: post the whole context of %s to %s: %w", q.ID, chat, err))
	}
	return nil
}

// sendFilesOnce is sendOnce for a message with files: the body is
// multipart/form-data, the message with its nonce in payload_json and
// file n in files[n].
func (c *Channel) sendFilesOnce(to, nonce string, m *discordgo.MessageSend, files []*discordgo.File, opts ...discordgo.RequestOption) (*discordgo.Message, error) {
	endpoint := discordgo.EndpointChannelMessages(to)
	contentType, body, err := discordgo.MultipartBodyWithJSON(messageWithNonce{MessageSend: m, Nonce: nonce, EnforceNonce: true}, files)
	if err != nil {
		return nil, err
	}
	resp, err := c.session.RequestRaw("POST", endpoint, contentType, body, endpoint, 0, opts...)
	if err != nil {
		return nil, err
	}
	var msg discordgo.Message
	if err := discordgo.Unmarshal(resp, &msg); err != nil {
		return nil, fmt.Errorf("%w: %v", discordgo.ErrJSONUnmarshal, err)
	}
	return &msg, nil
}
