package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Conversations of a live agent session: once a question asked with
// Conversation has ended, what a person who may answer it writes on it
// (in its thread, as a reply to its message, in the box on its card)
// reaches the agent's session, while the session listens, and the agent
// replies beside it.

// SessionMessage is a person's message to an agent session.
type SessionMessage struct {
	// MessageID numbers the message in its session; a reply names it.
	MessageID  string `json:"message_id"`
	QuestionID string `json:"question_id"`
	Text       string `json:"text"`
	// By is who wrote: the account, and the person it belongs to when
	// the bridge links it to one.
	By Responder `json:"by"`
	// Chat is where the person wrote, on By.Channel.
	Chat string    `json:"chat,omitempty"`
	At   time.Time `json:"at"`
}

// SessionMessages is one answer of Client.SessionMessages.
type SessionMessages struct {
	Messages []SessionMessage `json:"messages"`
	// Next is the after of the next call.
	Next int64 `json:"next"`
}

// SentReply says where a reply went.
type SentReply struct {
	MessageID  string `json:"message_id"`
	ReplyTo    string `json:"reply_to"`
	QuestionID string `json:"question_id"`
	Channel    string `json:"channel"`
	Chat       string `json:"chat,omitempty"`
}

// SessionMessages returns the people's messages to the agent's session
// with a number above after (after below 0: those that arrive from now
// on), waiting up to wait for one (GET /v1/sessions/{id}/messages). Each
// call tells the bridge that the session listens: people are told their
// message was not sent when no call came for a minute.
func (c *Client) SessionMessages(ctx context.Context, session string, after int64, wait time.Duration) (*SessionMessages, error) {
	q := url.Values{}
	if after >= 0 {
		q.Set("after", strconv.FormatInt(after, 10))
	}
	if wait > 0 {
		q.Set("wait", wait.String())
	}
	path := "/v1/sessions/" + url.PathEscape(session) + "/messages"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out SessionMessages
	if _, err := c.do(ctx, http.MethodGet, path, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ReplyInSession posts text beside the copy on which message messageID
// of the session was written ("" for the latest message from a person):
// in its thread, as a reply to it, or on its card (POST
// /v1/sessions/{id}/replies). An unknown session or message is an
// *APIError with status 404; a platform that did not take the reply, 502.
func (c *Client) ReplyInSession(ctx context.Context, session, messageID, text string) (*SentReply, error) {
	body := struct {
		Text      string `json:"text"`
		MessageID string `json:"message_id,omitempty"`
	}{text, messageID}
	var out SentReply
	if _, err := c.do(ctx, http.MethodPost, "/v1/sessions/"+url.PathEscape(session)+"/replies", body, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
