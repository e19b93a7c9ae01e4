package slackfake

import (
	"net/url"
	"strings"
)

// Failing thread replies.
//
// A reply in a thread is a chat.postMessage with thread_ts set. The fake
// can refuse those alone, the way Slack answers when something goes wrong
// after the message that starts the thread was posted: an error code with
// HTTP 200, or a server error (500 with {"ok":false,"error":"fatal_error"}).

// threadState is the fake's part for failing thread replies.
type threadState struct {
	status int
	code   string
}

// FailThreadReplies makes every chat.postMessage with thread_ts answer
// HTTP status with {"ok":false,"error":code}; a status of 0 stops it.
func (s *Server) FailThreadReplies(status int, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.thread = threadState{status: status, code: code}
}

// threadFailure returns the failure to answer a call with, when it is a
// thread reply and FailThreadReplies is on; s.mu is held.
func (s *Server) threadFailure(method string, form url.Values) (status int, code string, ok bool) {
	if s.thread.status == 0 || method != "chat.postMessage" || strings.TrimSpace(form.Get("thread_ts")) == "" {
		return 0, "", false
	}
	return s.thread.status, s.thread.code, true
}
