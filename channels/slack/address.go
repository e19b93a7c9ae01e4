package slack

import (
	"strings"

	"github.com/askbridge/askbridge/broker"
)

// Targets and chats.
//
// A route target names a Slack conversation by id: a channel (C…), a
// private channel or group DM (G…), or a person (U…/W…), whose questions
// go to their direct message with the bot. For a person the question's
// chat stays the user id, so that the broker's check "the answer comes
// from a chat the question was posted to" holds for answers typed in that
// DM: actions in a DM channel (D…) are reported with the acting user's id
// as Chat. Slack's APIs need the DM channel id, so the message reference of
// a DM copy carries it: MessageID is "D…/ts" instead of "ts".

// isUserID reports whether chat names a person rather than a conversation.
func isUserID(chat string) bool {
	return len(chat) > 1 && (chat[0] == 'U' || chat[0] == 'W')
}

// isDM reports whether a conversation id is a direct message with the bot.
func isDM(channelID string) bool { return strings.HasPrefix(channelID, "D") }

// chatOf is the broker's chat for an action in conversation channelID by
// user.
func chatOf(channelID, user string) string {
	if isDM(channelID) && user != "" {
		return user
	}
	return channelID
}

// messageID is the reference of message ts in conversation channelID, as
// Post returns it and Inbound.ReplyTo carries it.
func messageID(channelID, ts string) string {
	if isDM(channelID) {
		return channelID + "/" + ts
	}
	return ts
}

// locate returns the conversation and ts of a posted copy.
func locate(m broker.MessageRef) (channelID, ts string) {
	if ch, ts, ok := strings.Cut(m.MessageID, "/"); ok {
		return ch, ts
	}
	return m.Chat, m.MessageID
}
