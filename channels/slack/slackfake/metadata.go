package slackfake

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// Message metadata, conversation history and lost answers.
//
// Slack keeps the metadata a message was posted with (an event type and a
// payload) and returns it in conversations.history when asked with
// include_all_metadata; apps use it to find their own messages again. The
// fake does the same, and can lose the answer of a call it has carried
// out (the connection closes before the answer is written), which is what
// a client sees when the network or its own process fails at that moment.

// metaState is the fake's part for metadata and lost answers.
type metaState struct {
	// lose counts, per method, the answers still to lose.
	lose map[string]int
}

// LoseAnswers makes the next n calls of method be carried out and then
// answered by closing the connection, so the caller never learns the
// outcome.
func (s *Server) LoseAnswers(method string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.meta.lose == nil {
		s.meta.lose = map[string]int{}
	}
	s.meta.lose[method] = n
}

// loseAnswer reports whether the answer of this call of method is to be
// lost, counting it; s.mu is held.
func (s *Server) loseAnswer(method string) bool {
	if s.meta.lose[method] <= 0 {
		return false
	}
	s.meta.lose[method]--
	return true
}

// hangUp closes the connection of w without an answer.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // the server closes the connection
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

// metadataOf decodes the metadata form field of chat.postMessage ("" when
// absent or not a JSON object).
func metadataOf(form url.Values) json.RawMessage {
	raw := form.Get("metadata")
	var md struct {
		EventType string `json:"event_type"`
	}
	if raw == "" || json.Unmarshal([]byte(raw), &md) != nil || md.EventType == "" {
		return nil
	}
	return json.RawMessage(raw)
}

// history answers conversations.history: the conversation's top-level
// messages, newest first, a page of limit (100 by default) at a time,
// with their metadata when include_all_metadata is set; s.mu is held.
func (s *Server) history(form url.Values) apiResult {
	ch := form.Get("channel")
	if ch == "" {
		return fail("channel_not_found")
	}
	limit, err := strconv.Atoi(form.Get("limit"))
	if err != nil || limit <= 0 || limit > 999 {
		limit = 100
	}
	start, _ := strconv.Atoi(form.Get("cursor"))
	withMeta := form.Get("include_all_metadata") == "1" || form.Get("include_all_metadata") == "true"
	var top []*Message
	for i := len(s.messages) - 1; i >= 0; i-- {
		if m := s.messages[i]; m.Channel == ch && m.ThreadTS == "" {
			top = append(top, m)
		}
	}
	start = min(max(start, 0), len(top))
	end := min(start+limit, len(top))
	msgs := []map[string]any{}
	for _, m := range top[start:end] {
		out := map[string]any{"type": "message", "text": m.Text, "user": BotUserID, "bot_id": BotID, "ts": m.TS}
		if withMeta && m.Metadata != nil {
			out["metadata"] = m.Metadata
		}
		msgs = append(msgs, out)
	}
	res := apiResult{"ok": true, "messages": msgs, "has_more": end < len(top), "pin_count": 0}
	next := ""
	if end < len(top) {
		next = strconv.Itoa(end)
	}
	res["response_metadata"] = map[string]any{"next_cursor": next}
	return res
}

// openConversation answers conversations.open for one person: the DM
// with the bot; s.mu is held.
func (s *Server) openConversation(form url.Values) apiResult {
	user := form.Get("users")
	if _, ok := s.users[user]; !ok {
		return fail("user_not_found")
	}
	return apiResult{"ok": true, "channel": map[string]any{"id": DMChannel(user), "is_im": true, "user": user}}
}
