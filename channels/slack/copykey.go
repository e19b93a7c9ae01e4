package slack

import (
	"context"
	"fmt"

	slackapi "github.com/slack-go/slack"

	"github.com/askbridge/askbridge/broker"
)

var _ broker.Finder = (*Channel)(nil)

// A question's copy carries message metadata naming the question and the
// target it was posted for, so that a post whose answer was lost can be
// found in the conversation instead of being made twice (broker.Finder).
const (
	// copyEventType is the metadata event type of a question's copy.
	copyEventType = "askbridge_question"
	// findPages and findPageSize bound the search: the newest 200
	// messages of the conversation, where a copy posted by an attempt a
	// moment ago is.
	findPages    = 2
	findPageSize = 100
)

// copyMetadata is the metadata a copy of q posted to chat carries.
func copyMetadata(q *broker.Question, chat string) slackapi.SlackMetadata {
	return slackapi.SlackMetadata{
		EventType:    copyEventType,
		EventPayload: map[string]any{"question_id": q.ID, "target": chat},
	}
}

// isCopyOf reports whether m is the copy of question id posted for chat.
func isCopyOf(m slackapi.Message, id, chat string) bool {
	md := m.Metadata
	if md.EventType != copyEventType || m.ThreadTimestamp != "" && m.ThreadTimestamp != m.Timestamp {
		return false
	}
	qid, _ := md.EventPayload["question_id"].(string)
	target, _ := md.EventPayload["target"].(string)
	return qid == id && target == chat
}

// FindCopy looks through the newest messages of chat (the DM with the
// person, for a user id) for the copy of q, by its metadata. It needs the
// bot's *:history scopes; without them Slack answers missing_scope, which
// is permanent.
func (c *Channel) FindCopy(ctx context.Context, q *broker.Question, chat string) (broker.MessageRef, bool, error) {
	conv := chat
	if isUserID(chat) {
		ch, _, _, err := c.api.OpenConversationContext(ctx, &slackapi.OpenConversationParameters{Users: []string{chat}, ReturnIM: true})
		if err != nil {
			return broker.MessageRef{}, false, classify(fmt.Errorf("slack: find copy of %s for %s: open DM: %w", q.ID, chat, err))
		}
		conv = ch.ID
	}
	params := &slackapi.GetConversationHistoryParameters{ChannelID: conv, Limit: findPageSize, IncludeAllMetadata: true}
	for range findPages {
		h, err := c.api.GetConversationHistoryContext(ctx, params)
		if err != nil {
			return broker.MessageRef{}, false, classify(fmt.Errorf("slack: find copy of %s in %s: %w", q.ID, conv, err))
		}
		for _, m := range h.Messages {
			if isCopyOf(m, q.ID, chat) {
				c.log.Info("found an earlier copy", "question_id", q.ID, "chat", chat, "ts", m.Timestamp)
				return broker.MessageRef{Channel: Name, Chat: chat, MessageID: messageID(conv, m.Timestamp), PostedAt: c.now()}, true, nil
			}
		}
		if !h.HasMore || h.ResponseMetaData.NextCursor == "" {
			break
		}
		params.Cursor = h.ResponseMetaData.NextCursor
	}
	return broker.MessageRef{}, false, nil
}
