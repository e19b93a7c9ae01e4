package broker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Conversations between people and a live agent session.
//
// A conversation question (Question.Conversation, asked by `bridge
// channel`) belongs to an agent session that listens to people through
// the bridge: its channel server long-polls SessionMessages. While the
// question is pending, text on it is an answer, as on any question. Once
// it has ended, text that a person writes where the platform names the
// question (its thread in Slack, a reply to its message on Telegram and
// Discord, the box on its card in the web inbox) is a message to the
// session instead of "already answered":
//
//   - only a person who may answer the question sends (the route's
//     responders, people-aware); anyone else gets the usual refusal, and
//     the first refusal of each (sender, session) is logged;
//   - the person is told "Sent to the agent's session." when the session
//     listened within SessionListenWindow, and otherwise that nothing was
//     sent;
//   - the message is kept in the store (Conversations) for a day, with
//     the copy it was written on, so that ReplyInSession posts the
//     agent's answer beside it (a Threader channel).

// The writers of a SessionMessage.
const (
	FromPerson = "person"
	FromAgent  = "agent"
)

// Limits of conversations.
const (
	// SessionMessageTTL is how long a message of a conversation is kept.
	SessionMessageTTL = 24 * time.Hour
	// MaxSessionMessages is how many messages a conversation keeps; the
	// oldest go first.
	MaxSessionMessages = 200
	// MaxSessionPage is how many messages one read of SessionMessages
	// returns at most.
	MaxSessionPage = 100
	// MaxSessionMessageChars bounds a person's message to a session.
	MaxSessionMessageChars = 4000
	// MaxReplyChars bounds an agent's reply to people.
	MaxReplyChars = 4000
	// SessionListenWindow is how recently a session must have listened
	// for a person's message to be sent to it.
	SessionListenWindow = time.Minute
)

// What the person who wrote to a session is told, in English (a person
// reads it in their language: "answer.session_sent",
// "answer.session_not_connected").
const (
	SentToSession       = "Sent to the agent's session."
	SessionNotConnected = "The agent's session is not connected; nothing was sent."
)

// ErrNotPosted: a channel could not post an agent's reply (the platform
// refused it or could not be reached); trying again later may work.
var ErrNotPosted = errors.New("reply not posted")

// SessionMessage is one message of a conversation: a person's words to
// the agent's session, or the agent's reply.
type SessionMessage struct {
	// Seq numbers the message within its conversation (Conversations).
	Seq        int64  `json:"seq"`
	Agent      string `json:"agent"`
	SessionID  string `json:"session_id"`
	QuestionID string `json:"question_id"`
	// From is FromPerson or FromAgent.
	From string `json:"from"`
	Text string `json:"text"`
	// By is the person who wrote; nil on the agent's replies.
	By *Responder `json:"by,omitempty"`
	// Copy is the question's copy the message belongs to: where the
	// person wrote, and where the agent's reply to it went.
	Copy MessageRef `json:"copy"`
	// ReplyTo is, on an agent's reply, the number of the person's
	// message it answers.
	ReplyTo   int64     `json:"reply_to,omitempty"`
	At        time.Time `json:"at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// sessionText handles text that a person wrote on question id and that
// answer refused with reply: on a conversation question that has ended,
// it is a message to the session (the reply says whether it was sent),
// and a refused sender is logged once. ok is false when the text is not
// for a session, and reply stands.
func (b *Broker) sessionText(ctx context.Context, in Inbound, id, text string, reply Reply) (Reply, bool) {
	switch {
	case errors.Is(reply.Err, ErrClosed) && reply.Question != nil && reply.Question.Conversation:
		return b.toSession(ctx, in, reply.Question, text), true
	case errors.Is(reply.Err, ErrForbidden):
		if q, err := b.store.Get(ctx, id); err == nil && q.Conversation && q.Status.Terminal() {
			b.talk.dropped(b, in, q)
		}
	}
	return reply, false
}

// toSession keeps in's text as a message to q's session, when the
// session listens.
func (b *Broker) toSession(ctx context.Context, in Inbound, q *Question, text string) Reply {
	w := b.words(in, q)
	text, err := CheckPersonText(strings.TrimSpace(text))
	if err != nil {
		return Reply{Text: w.T("answer.session_not_sent", sayErr(w, err)), Question: q, Err: ErrInvalid}
	}
	switch n := utf8.RuneCountInString(text); {
	case n == 0:
		return Reply{Text: w.T("answer.session_text_only"), Question: q, Err: ErrInvalid}
	case n > MaxSessionMessageChars:
		return Reply{Text: w.T("answer.session_too_long", n, MaxSessionMessageChars), Question: q, Err: ErrInvalid}
	}
	now := b.cfg.Now().UTC().Truncate(time.Millisecond)
	at, err := b.store.ListenedAt(ctx, q.Agent, q.SessionID, now)
	if err != nil {
		b.log.Error("session message: read the session's last poll", "question_id", q.ID, "err", err)
		return refuse(ErrUnavailable, "%s", w.T("answer.session_failed"))
	}
	if at.IsZero() || now.Sub(at) > SessionListenWindow {
		b.log.Info("session message not sent: the session is not connected", "question_id", q.ID, "agent", q.Agent, "session_id", q.SessionID, "channel", in.Channel, "chat", in.Chat, "user", in.User)
		return Reply{Text: w.T("answer.session_not_connected"), Question: q, Err: ErrClosed}
	}
	m := SessionMessage{
		Agent: q.Agent, SessionID: q.SessionID, QuestionID: q.ID, From: FromPerson, Text: text,
		By: in.Responder(), Copy: b.copyOf(ctx, q, in), At: now, ExpiresAt: now.Add(SessionMessageTTL),
	}
	if m.Seq, err = b.store.AddSessionMessage(ctx, m); err != nil {
		b.log.Error("session message: keep", "question_id", q.ID, "err", err)
		return refuse(ErrUnavailable, "%s", w.T("answer.session_failed"))
	}
	b.log.Info("message sent to the agent's session", "question_id", q.ID, "agent", q.Agent, "session_id", q.SessionID, "seq", m.Seq, "channel", in.Channel, "chat", in.Chat, "user", in.User)
	b.talk.wake(q.Agent, q.SessionID)
	b.showConversation(q)
	reply := "answer.session_sent"
	if len(in.Attachments) > 0 {
		reply = "answer.session_sent_text"
	}
	return Reply{OK: true, Text: w.T(reply), Question: q}
}

// copyOf returns the copy of q that in was written on: the one it replies
// to, or the one in its chat.
func (b *Broker) copyOf(ctx context.Context, q *Question, in Inbound) MessageRef {
	fallback := MessageRef{Channel: in.Channel, Chat: in.Chat, MessageID: in.ReplyTo}
	refs, err := b.store.Messages(ctx, q.ID)
	if err != nil {
		b.log.Warn("session message: read the question's copies", "question_id", q.ID, "err", err)
		return fallback
	}
	var inChat *MessageRef
	for i, m := range refs {
		if m.Channel != in.Channel || m.Chat != in.Chat {
			continue
		}
		if in.ReplyTo != "" && m.MessageID == in.ReplyTo {
			return m
		}
		if inChat == nil {
			inChat = &refs[i]
		}
	}
	if inChat != nil {
		return *inChat
	}
	return fallback
}

// showConversation edits q's in-process copies (the web inbox's card),
// which show its conversation.
func (b *Broker) showConversation(q *Question) {
	local, _ := b.splitTargets(q.Targets)
	b.touchLocal(q, local, false)
}

// checkSessionID reports a session id the conversation endpoints cannot
// name, as a *FieldError of field.
func checkSessionID(field, session string) error {
	switch {
	case session == "":
		return fieldErr(field, "must not be empty")
	case len(session) > MaxIDFieldChars:
		return fieldErr(field, "must be at most %d bytes, got %d", MaxIDFieldChars, len(session))
	}
	return checkText(field, session, kindName)
}

// SessionMessages returns the people's messages to agent's session with
// a number above after, waiting up to wait for one when there is none,
// and the number to pass as after next time. With after below 0 it
// returns the messages that arrive from now on. Each call records that
// the session listens, again every third of SessionListenWindow while it
// waits. It re-reads the store every sessionPollEvery, for messages kept
// by other instances, and at once when this instance keeps one.
func (b *Broker) SessionMessages(ctx context.Context, agent, session string, after int64, wait time.Duration) ([]SessionMessage, int64, error) {
	if err := checkSessionID("session_id", session); err != nil {
		return nil, after, err
	}
	deadline := time.Now().Add(max(wait, 0))
	var marked time.Time
	for {
		now := b.cfg.Now().UTC().Truncate(time.Millisecond)
		if now.Sub(marked) >= SessionListenWindow/3 {
			if err := b.store.MarkListening(ctx, agent, session, now, now.Add(SessionMessageTTL)); err != nil {
				return nil, after, fmt.Errorf("broker: mark session %s listening: %w", session, err)
			}
			marked = now
		}
		// Taken before the read, so that a message kept after the read
		// ends the wait.
		woken, release := b.talk.waitFor(agent, session)
		msgs, next, err := b.readSession(ctx, agent, session, after, now)
		after = next
		left := time.Until(deadline)
		if err != nil || len(msgs) > 0 || left <= 0 {
			release()
			return msgs, after, err
		}
		t := time.NewTimer(min(left, sessionPollEvery))
		select {
		case <-woken:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		release()
		if ctx.Err() != nil {
			return nil, after, nil
		}
	}
}

// sessionPollEvery is how often a waiting SessionMessages re-reads the
// store for messages kept by other instances.
const sessionPollEvery = time.Second

// readSession reads the people's messages after after (all of them after
// a restart of the conversation's numbers), and the number read up to.
// With after below 0 it returns none and the conversation's latest
// number.
func (b *Broker) readSession(ctx context.Context, agent, session string, after int64, now time.Time) ([]SessionMessage, int64, error) {
	from := max(after, 0)
	msgs, latest, err := b.store.SessionMessages(ctx, agent, session, from, now, MaxSessionPage)
	if err == nil && after > latest {
		// The numbers restarted (the conversation was idle for longer
		// than its messages are kept): every message is new.
		from = 0
		msgs, latest, err = b.store.SessionMessages(ctx, agent, session, 0, now, MaxSessionPage)
	}
	if err != nil {
		return nil, after, fmt.Errorf("broker: read session %s: %w", session, err)
	}
	if after < 0 {
		return nil, latest, nil
	}
	next := from
	people := msgs[:0]
	for _, m := range msgs {
		next = max(next, m.Seq)
		if m.From == FromPerson {
			people = append(people, m)
		}
	}
	return people, next, nil
}

// checkReply checks an agent's reply text and returns it normalised (NFC,
// "\n" line breaks), or a *FieldError naming field.
func checkReply(field, text string) (string, error) {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	if strings.TrimSpace(text) == "" {
		return "", fieldErr(field, "must not be empty: write what people should read")
	}
	if err := checkText(field, text, kindProse); err != nil {
		return "", err
	}
	text = norm.NFC.String(strings.TrimSpace(text))
	if n := utf8.RuneCountInString(text); n > MaxReplyChars {
		return "", fieldErr(field, "has %d characters; at most %d", n, MaxReplyChars)
	}
	return text, nil
}

// ReplyInSession posts agent's text beside the copy that message seq of
// session came from (seq 0: the latest message from a person), and keeps
// it in the conversation. An unknown session or message, and another
// agent's, are ErrNotFound; a channel that cannot post replies is
// ErrConflict; a post the platform refused is ErrNotPosted.
func (b *Broker) ReplyInSession(ctx context.Context, agent, session string, seq int64, text string) (*SessionMessage, error) {
	if err := checkSessionID("session_id", session); err != nil {
		return nil, err
	}
	if seq < 0 {
		return nil, fieldErr("message_id", "must be a message's number (the message_id of its event), got %d", seq)
	}
	text, err := checkReply("text", text)
	if err != nil {
		return nil, err
	}
	now := b.cfg.Now().UTC().Truncate(time.Millisecond)
	msgs, _, err := b.store.SessionMessages(ctx, agent, session, 0, now, MaxSessionMessages)
	if err != nil {
		return nil, fmt.Errorf("broker: read session %s: %w", session, err)
	}
	var to *SessionMessage
	for i := len(msgs) - 1; i >= 0 && to == nil; i-- {
		if msgs[i].From == FromPerson && (seq == 0 || msgs[i].Seq == seq) {
			to = &msgs[i]
		}
	}
	switch {
	case to == nil && seq == 0:
		return nil, fmt.Errorf("%w: session %q has no message from a person to reply to", ErrNotFound, session)
	case to == nil:
		return nil, fmt.Errorf("%w: session %q has no message %d from a person", ErrNotFound, session, seq)
	}
	q, err := b.store.Get(ctx, to.QuestionID)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: question %s of message %d is gone", ErrNotFound, to.QuestionID, to.Seq)
	}
	if err != nil {
		return nil, fmt.Errorf("broker: read question %s: %w", to.QuestionID, err)
	}
	th, ok := b.channels[to.Copy.Channel].(Threader)
	if !ok {
		return nil, fmt.Errorf("%w: message %d was written on %s, which cannot show replies", ErrConflict, to.Seq, channelTitle(to.Copy.Channel))
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), b.cfg.PostTimeout)
	err = th.PostInThread(pctx, q, to.Copy, text)
	cancel()
	log := b.log.With("question_id", q.ID, "agent", agent, "session_id", session, "channel", to.Copy.Channel, "chat", to.Copy.Chat, "reply_to", to.Seq)
	if err != nil {
		log.Warn("reply not posted", "err", err)
		return nil, fmt.Errorf("%w: %s did not take the reply to message %d; try again later", ErrNotPosted, channelTitle(to.Copy.Channel), to.Seq)
	}
	m := SessionMessage{Agent: agent, SessionID: session, QuestionID: q.ID, From: FromAgent, Text: text,
		Copy: to.Copy, ReplyTo: to.Seq, At: now, ExpiresAt: now.Add(SessionMessageTTL)}
	if m.Seq, err = b.store.AddSessionMessage(context.WithoutCancel(ctx), m); err != nil {
		// Posted: the agent is not asked to post it again.
		log.Error("reply posted but not kept in the conversation", "err", err)
	}
	log.Info("reply posted", "seq", m.Seq)
	b.showConversation(q)
	return &m, nil
}

// ParseMessageID reads the message_id of a reply: a message's number, or
// "" for the latest message from a person (0).
func ParseMessageID(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, fieldErr("message_id", "%q is not a message's number (the message_id of its event), or empty for the latest", cutRunes(s, 40))
	}
	return n, nil
}

// Conversation returns what was said on q once it ended, people's
// messages and the agent's replies, oldest first, for the copies that
// show it (the web inbox's card); nil for a question that is no
// conversation.
func (b *Broker) Conversation(ctx context.Context, q *Question) ([]SessionMessage, error) {
	if !q.Conversation {
		return nil, nil
	}
	msgs, _, err := b.store.SessionMessages(ctx, q.Agent, q.SessionID, 0, b.cfg.Now(), MaxSessionMessages)
	if err != nil {
		return nil, fmt.Errorf("broker: read the conversation of %s: %w", q.ID, err)
	}
	out := msgs[:0]
	for _, m := range msgs {
		if m.QuestionID == q.ID {
			out = append(out, m)
		}
	}
	return out, nil
}
