package api

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/askbridge/askbridge/broker"
	"github.com/askbridge/askbridge/internal/longlived"
)

// The conversation endpoints of a live agent session
// (broker/conversation.go): the session's channel server long-polls what
// people wrote to it, and posts the agent's replies beside the copies
// they wrote on. An agent key reads and answers its own sessions only;
// another agent's session reads as one nobody wrote to.
func (s *Server) conversationRoutes() {
	s.mux.Handle("GET /v1/sessions/{session_id}/messages", longlived.Handler(s.agent(s.sessionMessages)))
	s.mux.HandleFunc("POST /v1/sessions/{session_id}/replies", s.agent(s.sessionReply))
}

// sessionMessageBody is one person's message to the session.
type sessionMessageBody struct {
	// MessageID is the message's number, which a reply names.
	MessageID  string           `json:"message_id"`
	QuestionID string           `json:"question_id"`
	Text       string           `json:"text"`
	By         broker.Responder `json:"by"`
	// Chat is where the person wrote, on By.Channel.
	Chat string    `json:"chat,omitempty"`
	At   time.Time `json:"at"`
}

// sessionMessagesBody is the answer of GET /v1/sessions/{id}/messages.
type sessionMessagesBody struct {
	Messages []sessionMessageBody `json:"messages"`
	// Next is the after of the next poll.
	Next int64 `json:"next"`
}

// sessionMessages answers the people's messages to the session after
// ?after=<n> (without it, those that arrive from now on), waiting up to
// ?wait= for one, and records that the session listens.
func (s *Server) sessionMessages(w http.ResponseWriter, r *http.Request, agent string) {
	after := int64(-1)
	if v := r.URL.Query().Get("after"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "invalid", "after: "+strconv.Quote(v)+" is not a message number (the next of the last answer, or 0 for every message kept)", "after")
			return
		}
		after = n
	}
	wait, ok := s.waitParam(w, r)
	if !ok {
		return
	}
	// The broker bounds the wait; a drain ends it at once, answering
	// what the poll has (nothing) and where to resume.
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(s.drainCtx, cancel)
	defer func() { stop(); cancel() }()
	msgs, next, err := s.b.SessionMessages(ctx, agent, r.PathValue("session_id"), after, wait)
	if err != nil {
		s.conversationFailed(w, err)
		return
	}
	out := sessionMessagesBody{Messages: make([]sessionMessageBody, 0, len(msgs)), Next: next}
	for _, m := range msgs {
		b := sessionMessageBody{MessageID: strconv.FormatInt(m.Seq, 10), QuestionID: m.QuestionID, Text: m.Text, Chat: m.Copy.Chat, At: m.At}
		if m.By != nil {
			b.By = *m.By
		}
		out.Messages = append(out.Messages, b)
	}
	writeJSON(w, http.StatusOK, out)
}

// replyRequest is the body of POST /v1/sessions/{id}/replies.
type replyRequest struct {
	Text string `json:"text"`
	// MessageID names the message answered; empty for the latest.
	MessageID string `json:"message_id,omitempty"`
}

// replyBody is the answer of POST /v1/sessions/{id}/replies.
type replyBody struct {
	MessageID  string `json:"message_id"`
	ReplyTo    string `json:"reply_to"`
	QuestionID string `json:"question_id"`
	Channel    string `json:"channel"`
	Chat       string `json:"chat,omitempty"`
}

// sessionReply posts the agent's text beside the copy a person wrote
// on: 201 with where it went.
func (s *Server) sessionReply(w http.ResponseWriter, r *http.Request, agent string) {
	var req replyRequest
	if decode(w, r, s.cfg.MaxBody, &req) {
		return
	}
	seq, err := broker.ParseMessageID(req.MessageID)
	if err != nil {
		writeBrokerError(w, err)
		return
	}
	// Once started, the post is the bridge's: a client that hangs up
	// does not cut it short.
	m, err := s.b.ReplyInSession(context.WithoutCancel(r.Context()), agent, r.PathValue("session_id"), seq, req.Text)
	if err != nil {
		s.conversationFailed(w, err)
		return
	}
	writeJSON(w, http.StatusCreated, replyBody{MessageID: strconv.FormatInt(m.Seq, 10), ReplyTo: strconv.FormatInt(m.ReplyTo, 10),
		QuestionID: m.QuestionID, Channel: m.Copy.Channel, Chat: m.Copy.Chat})
}

// conversationFailed answers a broker error, logging one the table does
// not know with its cause.
func (s *Server) conversationFailed(w http.ResponseWriter, err error) {
	if StatusOf(err).Status == http.StatusInternalServerError {
		s.log.Error("session conversation", "err", err)
	}
	writeBrokerError(w, err)
}
