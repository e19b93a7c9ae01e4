package broker

import (
	"context"
	"time"
)

// Conversations is the part of a Store that keeps the conversations of
// live agent sessions (conversation.go): what people wrote on a
// conversation question once it ended, and the agent's replies, per
// (agent, session), each kept until its ExpiresAt, at most
// MaxSessionMessages per conversation (the oldest go first). It also
// remembers when a session last listened, so that every instance can tell
// a person whether anyone will read what they write.
type Conversations interface {
	// AddSessionMessage appends m to the conversation of (m.Agent,
	// m.SessionID) under the next sequence number of that conversation,
	// which it returns. Numbers grow strictly within a conversation, also
	// across instances, and the messages are returned in their order.
	AddSessionMessage(ctx context.Context, m SessionMessage) (int64, error)
	// SessionMessages returns up to limit messages of the conversation
	// with a number above after, oldest first, leaving out those expired
	// at now, and the highest number the conversation has given (0 when
	// it has none; it may restart from 0 once a conversation was idle for
	// longer than its messages are kept).
	SessionMessages(ctx context.Context, agent, session string, after int64, now time.Time, limit int) (msgs []SessionMessage, latest int64, err error)
	// MarkListening records that the session listened at at; the mark is
	// kept until until.
	MarkListening(ctx context.Context, agent, session string, at, until time.Time) error
	// ListenedAt returns when the session last listened, or the zero time
	// when it never did or the mark expired.
	ListenedAt(ctx context.Context, agent, session string, now time.Time) (time.Time, error)
}
